import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import type { LedgerTransactionType, Resolvers, TestClockErrorCode } from '../src/generated/graphql.js';
import { scoped } from '../src/platform/auth/tenancy.js';
import type { SalesUnitContext } from '../src/platform/context.js';
import { ledgerCallerOf, type LedgerCaller } from '../src/ledgers/ledger-access.js';
import { AppError } from '../src/platform/errors/app-error.js';
import { cursorsOf, idKeyset, keysetPage, toGlobalId } from '../src/platform/graph/relay.js';
import { toGraphQLError, userErrorCodes, withUserErrors } from '../src/platform/graph/user-errors.js';
import { toPaymentViewAt } from '../src/payments/payment.view.js';
import { ledgerByIdLoader, ledgerTransactionsByPaymentIdLoader, paymentByIdLoader } from '../src/ledgers/ledger.loaders.js';
import { findCoveredLedger, ledgerTransactionsPage, ledgersPage } from '../src/ledgers/ledger.service.js';
import { advanceTestClock } from '../src/ledgers/test-clock.service.js';
import { DATE_REASON, storableDate } from '../src/platform/validation/storable-time.js';

const TEST_CLOCK_ERROR_CODES = userErrorCodes<TestClockErrorCode>({ VALIDATION_FAILED: true, FORBIDDEN_IN_PRODUCTION: true });

function date(value: unknown): string {
  const checked = typeof value === 'string' ? storableDate(value) : undefined;
  if (checked) return checked;
  throw new GraphQLError(`Date: ${DATE_REASON}`, { extensions: { code: 'BAD_USER_INPUT' } });
}

/**
 * A calendar date, YYYY-MM-DD (a ledger date). A date written in the document is checked, naming its field, by the
 * validation rule every face runs (storable-times.ts); variables here.
 */
const LedgerDateScalar = new GraphQLScalarType({
  name: 'Date',
  serialize: date,
  parseValue: date,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('Date must be a string', { extensions: { code: 'BAD_USER_INPUT' } });
    return ast.value;
  },
});

/** The graph acts for one sales unit: its ledger, when the caller's keys cover it. */
function callerOf(request: SalesUnitContext): LedgerCaller {
  return ledgerCallerOf(request, scoped(request).msn);
}

/** A graph failure of a read in the graph's shape: a bad filter is a BAD_USER_INPUT error. */
async function graphRead<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof AppError && error.code === 'VALIDATION_FAILED') {
      throw new GraphQLError(error.message, { extensions: { code: 'BAD_USER_INPUT', field: error.field } });
    }
    throw toGraphQLError(error);
  }
}

/** The settlement ledger in the graph: the same reads as the report API, Relay connections with keyset cursors. */
export const ledgerResolvers: Resolvers = {
  Date: LedgerDateScalar,
  Query: {
    ledgers: async (_, { first, after, settlesForRecipientHandles }, { request }) => {
      const recipientHandle = settlesForRecipientHandles ?? undefined;
      const page = keysetPage({ first, after }, idKeyset, 20, cursorsOf('Query.ledgers', request, { filter: { recipientHandle } }));
      const rows = await ledgersPage(
        { em: request.em, caller: callerOf(request) },
        { recipientHandle, afterId: page.after, limit: page.limit },
      );
      return page.connection(rows);
    },
    ledger: async (_, { ledgerId }, { request }) => {
      try {
        return await findCoveredLedger({ em: request.em, caller: callerOf(request) }, ledgerId);
      } catch (error) {
        if (error instanceof AppError && error.code === 'LEDGER_NOT_FOUND') return null;
        throw error;
      }
    },
    testClock: (_, __, { request }) => ({ merchantSerialNumber: scoped(request).msn, now: request.clock.now().toISOString() }),
  },
  Mutation: {
    advanceTestClock: (_, { input }, { services, request }) =>
      withUserErrors(TEST_CLOCK_ERROR_CODES, async () => {
        const msn = scoped(request).msn;
        const now = await advanceTestClock(services, msn, { seconds: input.seconds, until: input.until });
        return { testClock: { merchantSerialNumber: msn, now: now.toISOString() } };
      }),
  },
  Ledger: {
    id: (l) => toGlobalId('Ledger', l.id),
    prices: (l) =>
      l.prices.map((p) => ({
        msn: p.msn,
        recipientHandle: p.recipientHandle,
        percentageFeeBasisPoints: p.feeBasisPoints,
        fixedFee: p.feeFixed,
      })),
    transactions: (l, { first, after, filter }, { request }) =>
      graphRead(async () => {
        const raw = {
          ledgerDate: filter?.ledgerDate ?? undefined,
          fromLedgerDate: filter?.fromLedgerDate ?? undefined,
          toLedgerDate: filter?.toLedgerDate ?? undefined,
          inPayout: filter?.inPayout ?? undefined,
          sincePayout: filter?.sincePayout ?? undefined,
        };
        const page = keysetPage({ first, after }, idKeyset, 50, cursorsOf('Ledger.transactions', request, { filter: raw, parent: l.id }));
        return page.connection(await ledgerTransactionsPage(request, l, raw, { afterId: page.after, limit: page.limit }));
      }),
  },
  LedgerTransaction: {
    id: (t) => toGlobalId('LedgerTransaction', t.id),
    transactionType: (t) => t.transactionType.toUpperCase() as LedgerTransactionType,
    ledger: async (t, _, { request }) => {
      const ledger = await request.loaders.get(ledgerByIdLoader).load({ key: Number(t.ledgerId), caller: callerOf(request) });
      if (!ledger) throw new GraphQLError('The ledger is not available', { extensions: { code: 'NOT_FOUND' } });
      return ledger;
    },
    payment: async (t, _, { request }) => {
      if (!t.paymentId || t.msn !== scoped(request).msn) return null;
      const payment = await request.loaders.get(paymentByIdLoader).load({ msn: t.msn, id: t.paymentId });
      return payment ? toPaymentViewAt(payment, request.config, request.clock.now()) : null;
    },
  },
  SalesUnit: {
    clock: (unit, _, { services }) => ({ merchantSerialNumber: unit.msn, now: services.testClocks.of(unit.msn).now().toISOString() }),
  },
  Payment: {
    ledgerTransactions: (p, _, { request }) =>
      request.loaders.get(ledgerTransactionsByPaymentIdLoader).load({ key: p.id, caller: callerOf(request) }),
  },
};
