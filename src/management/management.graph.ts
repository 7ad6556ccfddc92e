import DataLoader from 'dataloader';
import type { RequestContext, Services } from '../platform/context.js';
import type { Em } from '../platform/db/orm.js';
import { defineLoader } from '../platform/graph/loader-registry.js';
import type { CreatedKey } from '../platform/paging/keyset.js';
import { readPaymentsOfSalesUnits } from '../payments/payment.read-model.js';
import { toPaymentViewAt, type PaymentView } from '../payments/payment.view.js';
import { apiQualityOf, type ApiQualityItem, type EndpointPage } from './api-quality.service.js';

/** A sales unit as the graph reads it: its row and its merchant's organisation number. */
export interface SalesUnitRow {
  msn: string;
  name: string;
  merchantId: string;
  orgno: string;
  status: 'ACTIVE' | 'DEACTIVATED';
  captureType: 'ReserveCapture' | 'DirectCapture' | 'NotApplicable';
  skipLandingPageAllowed: boolean;
  recurringAllowed: boolean;
}

/** The graph's SalesUnit: `{msn, name}` where another domain lists units (the dashboard), with the row when read here. */
export interface SalesUnitParent {
  msn: string;
  name: string;
  row?: SalesUnitRow;
}

export interface ViewerParent {
  kind: 'MERCHANT' | 'PARTNER' | 'PSP';
}

export interface ConnectedSalesUnitParent {
  unit: SalesUnitRow;
  merchantConsent: boolean;
}

export interface MerchantRow {
  id: string;
  orgno: string;
  name: string;
  status: 'ACTIVE' | 'DEACTIVATED';
}

const UNIT_COLUMNS = `su.msn, su.name, su.merchant_id, m.org_number, su.status, su.capture_type, su.skip_landing_page_allowed,
  su.recurring_allowed`;

type UnitSqlRow = {
  msn: string;
  name: string;
  merchant_id: string;
  org_number: string;
  status: SalesUnitRow['status'];
  capture_type: SalesUnitRow['captureType'];
  skip_landing_page_allowed: boolean;
  recurring_allowed: boolean;
};

const toUnit = (r: UnitSqlRow): SalesUnitRow => ({
  msn: r.msn,
  name: r.name,
  merchantId: r.merchant_id,
  orgno: r.org_number,
  status: r.status,
  captureType: r.capture_type,
  skipLandingPageAllowed: Boolean(r.skip_landing_page_allowed),
  recurringAllowed: Boolean(r.recurring_allowed),
});

/** The merchants whose own data the caller may read (coverage.ts, as `getMerchant` reads one), by organisation number after `after`, `limit` rows (keyset). */
export async function viewerMerchants(ctx: RequestContext, limit: number, after: string | undefined): Promise<MerchantRow[]> {
  const readable = ctx.covered('su.msn', { readsMerchantData: true });
  // A merchant is itself even before it has a sales unit; acting for an MSN of another merchant, it is not.
  const own = ctx.principal.kind === 'merchant' && ctx.scope.kind === 'principal' ? ctx.principal.merchantId : null;
  const rows = await ctx.em.execute<{ id: string; org_number: string; name: string; status: MerchantRow['status'] }[]>(
    `select m.id, m.org_number, m.name, m.status from merchant m
     where (m.id = ? or exists (select 1 from sales_unit su where su.merchant_id = m.id and ${readable.sql}))
       ${after ? 'and m.org_number > ?' : ''}
     order by m.org_number limit ?`,
    [own, ...readable.params, ...(after ? [after] : []), limit],
  );
  return rows.map((r) => ({ id: r.id, orgno: r.org_number, name: r.name, status: r.status }));
}

interface UnitsKey {
  merchantId: string;
  limit: number;
  after: string | undefined;
}

const unitsKey = (k: UnitsKey) => `${k.merchantId}|${k.limit}|${k.after ?? ''}`;

/**
 * The units of several merchants the caller sees, `limit` per merchant after an MSN, in one statement per distinct
 * page (in practice one): three levels over 50 units cost the same statements as over one.
 */
const salesUnitsByMerchantIdLoaders = new WeakMap<RequestContext, DataLoader<UnitsKey, SalesUnitRow[], string>>();
export function salesUnitsByMerchantIdLoader(ctx: RequestContext): DataLoader<UnitsKey, SalesUnitRow[], string> {
  let loader = salesUnitsByMerchantIdLoaders.get(ctx);
  if (!loader) {
    loader = new DataLoader<UnitsKey, SalesUnitRow[], string>(
      async (keys) => {
        const found = new Map<string, SalesUnitRow[]>(keys.map((k) => [unitsKey(k), []]));
        const v = ctx.covered('su.msn');
        for (const page of new Set(keys.map((k) => `${k.limit}|${k.after ?? ''}`))) {
          const group = keys.filter((k) => `${k.limit}|${k.after ?? ''}` === page);
          const { limit, after } = group[0]!;
          const rows = await ctx.em.execute<UnitSqlRow[]>(
            `select * from (
               select ${UNIT_COLUMNS}, row_number() over (partition by su.merchant_id order by su.msn) as position
               from sales_unit su join merchant m on m.id = su.merchant_id
               where ${v.sql} and su.merchant_id in (${group.map(() => '?').join(', ')}) ${after ? 'and su.msn > ?' : ''}
             ) ranked where position <= ? order by merchant_id, msn`,
            [...v.params, ...group.map((k) => k.merchantId), ...(after ? [after] : []), limit],
          );
          for (const row of rows) found.get(unitsKey({ merchantId: row.merchant_id, limit, after }))?.push(toUnit(row));
        }
        return keys.map((k) => found.get(unitsKey(k))!);
      },
      { cacheKeyFn: unitsKey },
    );
    salesUnitsByMerchantIdLoaders.set(ctx, loader);
  }
  return loader;
}

/** One unit's row by MSN, batched (units listed by another domain carry only msn and name). No tenancy: the parent was scoped. */
export const salesUnitByMsnLoader = defineLoader(
  'salesUnitByMsnLoader',
  (em: Em) =>
    new DataLoader<string, SalesUnitRow | undefined>(async (msns) => {
      const rows = await em.execute<UnitSqlRow[]>(
        `select ${UNIT_COLUMNS} from sales_unit su join merchant m on m.id = su.merchant_id where su.msn in (${msns.map(() => '?').join(', ')})`,
        [...msns],
      );
      const byMsn = new Map(rows.map((r) => [r.msn, toUnit(r)]));
      return msns.map((msn) => byMsn.get(msn));
    }),
);

interface PaymentsKey {
  msn: string;
  limit: number;
  before: CreatedKey | undefined;
}
const paymentsKey = (k: PaymentsKey) => `${k.msn}|${k.limit}|${k.before ? `${k.before.createdAt.toISOString()}|${k.before.id}` : ''}`;

/** The newest payments of several units, batched per distinct page (one statement for a page of units). */
const paymentsBySalesUnitLoaders = new WeakMap<RequestContext, DataLoader<PaymentsKey, PaymentView[], string>>();
export function paymentsBySalesUnitLoader(ctx: RequestContext): DataLoader<PaymentsKey, PaymentView[], string> {
  let loader = paymentsBySalesUnitLoaders.get(ctx);
  if (!loader) {
    loader = new DataLoader<PaymentsKey, PaymentView[], string>(
      async (keys) => {
        const found = new Map<string, PaymentView[]>(keys.map((k) => [paymentsKey(k), []]));
        const now = ctx.clock.now();
        const pageOf = (k: PaymentsKey) => paymentsKey({ ...k, msn: '' });
        for (const page of new Set(keys.map(pageOf))) {
          const group = keys.filter((k) => pageOf(k) === page);
          const { limit, before } = group[0]!;
          const rows = await readPaymentsOfSalesUnits(ctx.em, [...new Set(group.map((k) => k.msn))], limit, before);
          for (const row of rows) found.get(paymentsKey({ msn: row.msn, limit, before }))?.push(toPaymentViewAt(row, ctx.config, now));
        }
        return keys.map((k) => found.get(paymentsKey(k))!);
      },
      { cacheKeyFn: paymentsKey },
    );
    paymentsBySalesUnitLoaders.set(ctx, loader);
  }
  return loader;
}

interface ApiQualityKey extends EndpointPage {
  msn: string;
}
const apiQualityKey = (k: ApiQualityKey) => `${k.msn}|${k.limit}|${k.after ?? ''}`;

/** A page of API quality of several units, batched per distinct page (one statement for a page of units). */
const apiQualityLoaders = new WeakMap<RequestContext, DataLoader<ApiQualityKey, ApiQualityItem[], string>>();
export function apiQualityBySalesUnitLoader(ctx: RequestContext, services: Services): DataLoader<ApiQualityKey, ApiQualityItem[], string> {
  let loader = apiQualityLoaders.get(ctx);
  if (!loader) {
    loader = new DataLoader<ApiQualityKey, ApiQualityItem[], string>(
      async (keys) => {
        const found = new Map<string, ApiQualityItem[]>();
        const pageOf = (k: ApiQualityKey) => apiQualityKey({ ...k, msn: '' });
        for (const page of new Set(keys.map(pageOf))) {
          const group = keys.filter((k) => pageOf(k) === page);
          const { limit, after } = group[0]!;
          const byMsn = await apiQualityOf(ctx, services, [...new Set(group.map((k) => k.msn))], { limit, after });
          for (const k of group) found.set(apiQualityKey(k), byMsn.get(k.msn) ?? []);
        }
        return keys.map((k) => found.get(apiQualityKey(k))!);
      },
      { cacheKeyFn: apiQualityKey },
    );
    apiQualityLoaders.set(ctx, loader);
  }
  return loader;
}

/** The units connected to the partner with the consent state, by MSN after `after` (keyset). */
export async function connectedUnits(
  ctx: RequestContext,
  partnerId: string,
  limit: number,
  after: string | undefined,
): Promise<{ unit: SalesUnitRow; merchantConsent: boolean }[]> {
  const rows = await ctx.em.execute<(UnitSqlRow & { merchant_consent: boolean })[]>(
    `select ${UNIT_COLUMNS}, psu.merchant_consent from partner_sales_unit psu
     join sales_unit su on su.msn = psu.msn join merchant m on m.id = su.merchant_id
     where psu.partner_id = ? ${after ? 'and su.msn > ?' : ''} order by su.msn limit ?`,
    [partnerId, ...(after ? [after] : []), limit],
  );
  return rows.map((r) => ({ unit: toUnit(r), merchantConsent: Boolean(r.merchant_consent) }));
}

/** A unit the caller sees, for `node(id:)`; another tenant's is undefined. */
export async function findVisibleSalesUnit(ctx: RequestContext, msn: string): Promise<SalesUnitParent | undefined> {
  const v = ctx.covered('su.msn');
  const [row] = await ctx.em.execute<UnitSqlRow[]>(
    `select ${UNIT_COLUMNS} from sales_unit su join merchant m on m.id = su.merchant_id where ${v.sql} and su.msn = ?`,
    [...v.params, msn],
  );
  return row ? { msn: row.msn, name: row.name, row: toUnit(row) } : undefined;
}
