import { orderResolvers } from '../../resolvers/orders.js';
import type { DomainModule } from '../platform/module.js';
import { Migration20261123160900Orders } from '../orders/migrations/Migration20261123160900Orders.js';
import { orderRoutes } from '../orders/order.routes.js';
import '../orders/order.errors.js';

/** Order management: categories, images and receipts of orders; an ePayment payment's order by its reference. */
export const ordersModule: DomainModule = {
  name: 'orders',
  migrations: [{ name: 'Migration20261123160900Orders', class: Migration20261123160900Orders }],
  routes: orderRoutes,
  resolvers: [orderResolvers],
};
