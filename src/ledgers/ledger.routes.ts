import type { HeaderRules } from '../platform/auth/header-rules.js';
import type { AuthRule } from '../platform/auth/request-context.js';
import type { RequestContext, Services } from '../platform/context.js';
import { ledgerError } from './ledger-error.js';
import { defineRestInterface, type RestInterface } from '../platform/rest/rest-interface.js';
import { ledgerCallerOf } from './ledger-access.js';
import type { LedgerView } from './ledger.queries.js';
import { listLedgerTransactions, listLedgers, type LedgerReader } from './ledger.service.js';
import { actingFor } from '../platform/auth/tenancy-scope.js';

/** Spec 3 "Authentication": the access token alone; the system headers are optional, up to 30 characters. */
const LEDGER_HEADERS: HeaderRules = { msn: 'optional', systemHeaders: { presence: 'optional', maxLength: 30 } };

/**
 * Spec 3 "Authentication": the access token alone (a subscription key sent anyway must match); the caller acts as a
 * whole, since the answer covers every ledger of the keys used. A caller that names a sales unit
 * (`Merchant-Serial-Number`, as a partner does) reads only its ledger, once the front checked it may.
 */
const LEDGER_AUTH = {
  method: 'bearer',
  accepts: ['merchant', 'partner', 'psp'],
  subscriptionKey: 'optional',
  scope: 'principal',
} satisfies AuthRule;

/**
 * The settlement ledger / report API 1.0 (FACTS §11) on its two public prefixes, read with the caller's ledger
 * access (ledger-access.ts).
 */
export function ledgerRoutes(services: Services): RestInterface[] {
  const reader = (ctx: RequestContext): LedgerReader => ({
    em: ctx.em,
    caller: ledgerCallerOf(ctx, actingFor(ctx.scope)),
    cursorSecret: services.config.tokenSecret,
  });
  const settlement = defineRestInterface(
    services,
    { name: 'Settlement ledger API', prefix: '/settlement/v1', errorFormat: ledgerError, auth: LEDGER_AUTH, headers: LEDGER_HEADERS },
    (route) => [
      route({
        method: 'GET',
        path: '/ledgers',
        summary: "The ledgers the caller's keys cover (query settlesForRecipientHandles, cursor)",
        idempotent: false,
        success: { status: 200, description: '{cursor, items: Ledger[]}' },
        handler: async (ctx, { query }) => {
          const page = await listLedgers(reader(ctx), {
            settlesForRecipientHandles: param(query, 'settlesForRecipientHandles'),
            cursor: param(query, 'cursor'),
          });
          return { status: 200, body: { cursor: page.cursor, items: page.items.map(ledgerBody) } };
        },
      }),
    ],
  );
  const transactions = (ctx: RequestContext, query: URLSearchParams, ledgerId: string | undefined) =>
    listLedgerTransactions(reader(ctx), {
      ledgerId,
      cursor: param(query, 'cursor'),
      filter: {
        ledgerDate: param(query, 'ledgerDate'),
        fromLedgerDate: param(query, 'fromLedgerDate'),
        toLedgerDate: param(query, 'toLedgerDate'),
        inPayout: param(query, 'inPayout'),
        sincePayout: param(query, 'sincePayout'),
      },
    }).then((page) => ({ status: 200, body: page }));
  const report = defineRestInterface(
    services,
    {
      name: 'Report API (settlement ledger transactions)',
      prefix: '/report/v1',
      errorFormat: ledgerError,
      auth: LEDGER_AUTH,
      headers: LEDGER_HEADERS,
    },
    (route) => [
      route({
        method: 'GET',
        path: '/ledgertransactions',
        summary: 'Transactions of a ledger (query ledgerId, ledgerDate, fromLedgerDate, toLedgerDate, inPayout, sincePayout, cursor)',
        idempotent: false,
        success: { status: 200, description: '{cursor, items: Transaction[]}' },
        handler: (ctx, { query }) => transactions(ctx, query, param(query, 'ledgerId')),
      }),
      route({
        method: 'GET',
        path: '/ledgertransactions/{ledgerId}',
        summary: "Transactions of a ledger, the spec's form with ledgerId in the path",
        idempotent: false,
        params: {
          ledgerId: { accepts: (v) => /^[0-9]{1,15}$/.test(v), reason: 'Must be a ledger id (digits)', jsonSchema: { type: 'string' } },
        },
        success: { status: 200, description: '{cursor, items: Transaction[]}' },
        handler: (ctx, { query, params }) => transactions(ctx, query, params.ledgerId),
      }),
    ],
  );
  return [settlement, report];
}

/** A query parameter; an empty one (`cursor=`) is absent, as clients send it. */
function param(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name);
  return value === null || value === '' ? undefined : value;
}

function ledgerBody(ledger: LedgerView) {
  return {
    ledgerId: ledger.ledgerId,
    currency: ledger.currency,
    payoutBankAccount: ledger.payoutBankAccount,
    firstPayout: ledger.firstPayout,
    lastPayout: ledger.lastPayout,
    owner: ledger.owner,
    settlesForRecipientHandles: ledger.settlesForRecipientHandles,
  };
}
