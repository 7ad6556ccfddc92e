import type { ManagementErrorCode, Resolvers, ViewerKind } from '../src/generated/graphql.js';
import { AppError } from '../src/platform/errors/app-error.js';
import { MSN_PATTERN } from '../src/platform/auth/header-rules.js';
import { cursorsOf, idKeyset, keysetPage, newestFirst, toGlobalId, type Keyset } from '../src/platform/graph/relay.js';
import { userErrorCodes, withUserErrors } from '../src/platform/graph/user-errors.js';
import { Partner } from '../src/merchants/partner.entity.js';
import {
  apiQualityBySalesUnitLoader,
  connectedUnits,
  paymentsBySalesUnitLoader,
  salesUnitByMsnLoader,
  salesUnitsByMerchantIdLoader,
  viewerMerchants,
  type SalesUnitParent,
} from '../src/management/management.graph.js';
import { pricePackages, updateSalesUnit } from '../src/management/management.service.js';
import { partnerConsentsOf, setMerchantConsent } from '../src/management/merchant-consent.service.js';
import { listProductOrders } from '../src/management/product-order.service.js';
import { listProductOrderEvents } from '../src/management/product-order.events.js';
import type { RequestContext } from '../src/platform/context.js';
import type { PaymentView } from '../src/payments/payment.view.js';
import type { PrefillStatus, ProductOrder } from '../src/management/product-order.entity.js';

const MANAGEMENT_ERRORS = userErrorCodes<ManagementErrorCode>({
  VALIDATION_FAILED: true,
  SALES_UNIT_NOT_FOUND: true,
  SALES_UNIT_UPDATE_INVALID: true,
  PARTNER_NOT_CONNECTED: true,
  MERCHANT_NOT_FOUND: true,
});

/** Who the caller is; the graph takes merchants, partners and PSPs (`GRAPH_API_AUTH`). */
function viewerKind(request: RequestContext): ViewerKind {
  switch (request.principal.kind) {
    case 'partner':
      return 'PARTNER';
    case 'psp':
      return 'PSP';
    default:
      return 'MERCHANT';
  }
}

/** Keyset of rows ordered by one text key (organisation number, MSN). */
const textKeyset = <T>(keyOf: (row: T) => string, pattern: RegExp): Keyset<T, string> => ({
  keyOf: (row) => [keyOf(row)],
  read: ([key, ...rest]) => (typeof key === 'string' && pattern.test(key) && rest.length === 0 ? key : undefined),
});
const byOrgno = textKeyset((m: { orgno: string }) => m.orgno, /^\d{9}$/);
const byMsn = textKeyset((u: { msn: string }) => u.msn, MSN_PATTERN);
const byConnectedMsn = textKeyset((c: { unit: { msn: string } }) => c.unit.msn, MSN_PATTERN);
const byPartnerId = textKeyset((c: { partnerId: string }) => c.partnerId, /^\S{1,100}$/);
const byEndpoint = textKeyset((item: { endpoint: string }) => item.endpoint, /^[A-Z]+ \S+$/);
const byPricePackageId = textKeyset(
  (p: { pricePackageId: string }) => p.pricePackageId,
  /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
);

/** Every list of this graph hands out signed cursors bound to its field: one list's cursor is refused by another. */

async function unitRow(parent: SalesUnitParent, request: RequestContext) {
  const row = parent.row ?? (await request.loaders.get(salesUnitByMsnLoader).load(parent.msn));
  if (!row) throw new AppError('SALES_UNIT_NOT_FOUND', `No sales unit ${parent.msn}`);
  return row;
}

export const managementResolvers: Resolvers = {
  Query: {
    viewer: (_, __, { request }) => ({ kind: viewerKind(request) }),
  },
  Viewer: {
    merchant: async (_, __, { request }) => {
      if (request.principal.kind !== 'merchant') return null;
      const [own] = await viewerMerchants(request, 1, undefined);
      return own ?? null;
    },
    partner: async (_, __, { request }) =>
      request.principal.kind === 'partner' ? await request.em.findOne(Partner, { id: request.principal.partnerId }) : null,
    pspId: (_, __, { request }) => (request.principal.kind === 'psp' ? request.principal.pspId : null),
    merchants: async (_, args, { request }) => {
      const page = keysetPage(args, byOrgno, 20, cursorsOf('Viewer.merchants', request));
      return page.connection(await viewerMerchants(request, page.limit, page.after));
    },
  },
  Merchant: {
    id: (m) => toGlobalId('Merchant', m.orgno),
    salesUnits: async (m, args, { request }) => {
      const page = keysetPage(args, byMsn, 20, cursorsOf('Merchant.salesUnits', request, { parent: m.orgno }));
      const rows = await salesUnitsByMerchantIdLoader(request).load({ merchantId: m.id, limit: page.limit, after: page.after });
      return page.connection(rows.map((row) => ({ msn: row.msn, name: row.name, row })));
    },
    partnerConsents: async (m, args, { request }) => {
      const page = keysetPage(args, byPartnerId, 20, cursorsOf('Merchant.partnerConsents', request, { parent: m.orgno }));
      return page.connection(await partnerConsentsOf(request, m.id, page.limit, page.after));
    },
  },
  SalesUnit: {
    id: (u) => toGlobalId('SalesUnit', u.msn),
    status: async (u, _, { request }) => (await unitRow(u, request)).status,
    orgno: async (u, _, { request }) => (await unitRow(u, request)).orgno,
    configuration: async (u, _, { request }) => {
      const row = await unitRow(u, request);
      return {
        paymentAllowed: row.status === 'ACTIVE',
        captureType: row.captureType,
        skipLandingPageAllowed: row.skipLandingPageAllowed,
        recurringAllowed: row.recurringAllowed,
      };
    },
    payments: async (u, args, { request }) => {
      const page = keysetPage(args, newestFirst<PaymentView>(), 20, cursorsOf('SalesUnit.payments', request, { parent: u.msn }));
      return page.connection(await paymentsBySalesUnitLoader(request).load({ msn: u.msn, limit: page.limit, before: page.after }));
    },
    apiQuality: async (u, args, { request, services }) => {
      const page = keysetPage(args, byEndpoint, 20, cursorsOf('SalesUnit.apiQuality', request, { parent: u.msn }));
      return page.connection(
        await apiQualityBySalesUnitLoader(request, services).load({ msn: u.msn, limit: page.limit, after: page.after }),
      );
    },
  },
  ApiQualityItem: {
    totalRequests: (item) => item['total Requests'],
  },
  Partner: {
    id: (p) => toGlobalId('Partner', p.id),
    partnerId: (p) => p.id,
    connectedSalesUnits: async (p, args, { request }) => {
      const page = keysetPage(args, byConnectedMsn, 20, cursorsOf('Partner.connectedSalesUnits', request, { parent: p.id }));
      return page.connection(await connectedUnits(request, p.id, page.limit, page.after));
    },
    productOrders: async (p, args, { request }) => {
      const page = keysetPage(args, newestFirst<ProductOrder>(), 20, cursorsOf('Partner.productOrders', request, { parent: p.id }));
      return page.connection(await listProductOrders(request, p.id, page.limit, page.after));
    },
    pricePackages: async (_, args, { request }) => {
      const page = keysetPage(args, byPricePackageId, 20, cursorsOf('Partner.pricePackages', request));
      return page.connection(await pricePackages(request, { limit: page.limit, after: page.after }));
    },
    productOrderEvents: async (_, args, { request }) => {
      const page = keysetPage(args, idKeyset, 20, cursorsOf('Partner.productOrderEvents', request));
      return page.connection(await listProductOrderEvents(request, page.limit, page.after));
    },
  },
  ConnectedSalesUnit: {
    salesUnit: (c) => ({ msn: c.unit.msn, name: c.unit.name, row: c.unit }),
  },
  ProductOrderEvent: {
    prefilledOrderId: (e) => e.streamId,
    prefillStatus: (e) => (e.payload.prefillStatus as Exclude<PrefillStatus, 'DELETED'> | null) ?? null,
    msn: (e) => (typeof e.payload.msn === 'string' ? e.payload.msn : null),
    occurredAt: (e) => e.occurredAt.toISOString(),
  },
  ProductOrder: {
    id: (o) => toGlobalId('ProductOrder', o.id),
    prefilledOrderId: (o) => o.id,
    prefillStatus: (o) => (o.status === 'DELETED' ? 'RECEIVED' : o.status),
    orgno: (o) => o.orgNumber,
    createdAt: (o) => o.createdAt.toISOString(),
  },
  Mutation: {
    giveMerchantConsent: (_, { input }, { request }) =>
      withUserErrors(MANAGEMENT_ERRORS, async () => ({ partnerConsent: await setMerchantConsent(request, input.partnerId, true) })),
    withdrawMerchantConsent: (_, { input }, { request }) =>
      withUserErrors(MANAGEMENT_ERRORS, async () => ({ partnerConsent: await setMerchantConsent(request, input.partnerId, false) })),
    updateSalesUnit: (_, { input }, { request }) =>
      withUserErrors(MANAGEMENT_ERRORS, async () => {
        const update = {
          name: input.name ?? undefined,
          salesUnitLogo: input.salesUnitLogo ?? undefined,
          status: input.status ?? undefined,
        };
        const details = await updateSalesUnit(request, input.msn, update);
        return { salesUnit: { msn: details.msn, name: details.name } };
      }),
  },
};
