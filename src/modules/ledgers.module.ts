import { ledgerResolvers } from '../../resolvers/ledgers.js';
import { salesUnitNode } from '../platform/auth/tenancy.js';
import type { DomainModule } from '../platform/module.js';
import { Migration20261123161300Ledgers } from '../ledgers/migrations/Migration20261123161300Ledgers.js';
import { closeLedgerDates, nextLedgerPayout } from '../ledgers/ledger-payout.job.js';
import { Ledger, LedgerSalesUnit, LedgerTransaction } from '../ledgers/ledger.entity.js';
import { ledgerProjector } from '../ledgers/ledger.projector.js';
import { readLedgerTransaction, readLedgers } from '../ledgers/ledger.queries.js';
import { ledgerCallerOf } from '../ledgers/ledger-access.js';
import { ledgerRoutes } from '../ledgers/ledger.routes.js';
import { seedLedgers } from '../ledgers/ledger.seed.js';
import '../ledgers/ledger.errors.js';

/**
 * Settlement ledgers: what the money flow produces (captures and refunds projected from payments' events in their
 * own transaction), the daily payout job, the report API on REST and in the graph, and the test clock.
 */
export const ledgersModule: DomainModule = {
  name: 'ledgers',
  entities: [Ledger, LedgerSalesUnit, LedgerTransaction],
  migrations: [{ name: 'Migration20261123161300Ledgers', class: Migration20261123161300Ledgers }],
  routes: ledgerRoutes,
  resolvers: [ledgerResolvers],
  nodes: {
    Ledger: salesUnitNode(async (ctx, key) =>
      /^[0-9]{1,15}$/.test(key)
        ? (await readLedgers(ctx.em, ledgerCallerOf(ctx, ctx.scope.msn), { ledgerIds: [Number(key)], limit: 1 }))[0]
        : undefined,
    ),
    LedgerTransaction: salesUnitNode(async (ctx, key) =>
      /^[0-9]{1,15}$/.test(key) ? readLedgerTransaction(ctx.em, ledgerCallerOf(ctx, ctx.scope.msn), Number(key)) : undefined,
    ),
  },
  projectors: [ledgerProjector],
  jobs: (services) => [
    { name: 'close-ledger-dates', run: () => closeLedgerDates(services), nextDueFor: (msn) => nextLedgerPayout(services, msn) },
  ],
  seedTestEnvironment: (em, now) => seedLedgers(em, now),
};
