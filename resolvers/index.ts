import type { Resolvers } from '../src/generated/graphql.js';
import { dashboardResolvers } from './dashboard.js';
import { nodeResolvers } from './node.js';
import { paymentMutationResolvers } from './payment-mutations.js';
import { paymentResolvers } from './payments.js';
import { DateTime, MinorUnits } from './scalars.js';
import { subscriptionResolvers } from './subscriptions.js';
import { webhookResolvers } from './webhooks.js';

/** One module per domain; makeExecutableSchema merges them. */
export const resolvers: Resolvers[] = [
  { DateTime, MinorUnits },
  nodeResolvers,
  paymentResolvers,
  paymentMutationResolvers,
  subscriptionResolvers,
  webhookResolvers,
  dashboardResolvers,
];
