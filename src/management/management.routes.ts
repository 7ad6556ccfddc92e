import Type from 'typebox';
import { MSN_PATTERN, type HeaderRules } from '../platform/auth/header-rules.js';
import type { Services } from '../platform/context.js';
import { managementProblem } from './management-problem.js';
import type { ParamRule } from '../platform/rest/path-params.js';
import { defineRestInterface, type RestInterface } from '../platform/rest/rest-interface.js';
import { declareBody } from '../platform/validation/declare-body.js';
import { stringEnum } from '../platform/validation/string-enum.js';
import { apiQuality } from './api-quality.service.js';
import { checkIdempotencyKeyFormat, MANAGEMENT_AUTH } from './management-api.js';
import {
  allSalesUnits,
  getMerchant,
  listMerchants,
  merchantContracts,
  merchantSalesUnits,
  pricePackages,
  salesUnitDetails,
  updateSalesUnit,
  whoami,
} from './management.service.js';
import { createProductOrder, deleteProductOrder, readProductOrder } from './product-order.service.js';
import { managementProductOrderBody } from './product-order.schemas.js';
import { contractPdf } from './contract-pdf.js';
import type { SalesUnitUpdate } from './sales-unit-update.rules.js';
import { merchantByIdentifier, orgnoOf, salesUnitsByIdentifier } from './business-identifier.js';

/** Spec 3: `Merchant-Serial-Number` optional (a partner acting for a merchant sends it); the four system headers required. */
export const MANAGEMENT_HEADERS: HeaderRules = { msn: 'optional', systemHeaders: { presence: 'required', maxLength: 30 } };

export const orgnoParam: ParamRule = {
  accepts: (v) => /^[0-9]{9}$/.test(v),
  reason: 'Must be a 9-digit organisation number',
  jsonSchema: { type: 'string', pattern: '^[0-9]{9}$' },
};
export const msnParam: ParamRule = {
  accepts: (v) => MSN_PATTERN.test(v),
  reason: 'Must be 4 to 6 digits',
  jsonSchema: { type: 'string', pattern: MSN_PATTERN.source },
};
/** Management 1.1.x: `business:<country>:<type>`, e.g. `business:NO:ORG`. */
const schemeParam: ParamRule = {
  accepts: (v) => /^business:[A-Z]{2}:[A-Za-z0-9-]{1,20}$/.test(v),
  reason: 'Must be a business identifier scheme such as business:NO:ORG',
  jsonSchema: { type: 'string', pattern: '^business:[A-Z]{2}:[A-Za-z0-9-]{1,20}$', example: 'business:NO:ORG' },
};
const businessIdParam: ParamRule = {
  accepts: (v) => /^[A-Za-z0-9-]{1,34}$/.test(v),
  reason: 'Must be the merchant’s identifier in the scheme (for business:NO:ORG the organisation number)',
  jsonSchema: { type: 'string', pattern: '^[A-Za-z0-9-]{1,34}$' },
};
const orderIdParam: ParamRule = {
  accepts: (v) => v.length <= 64,
  reason: 'Must be the prefilledOrderId create returned',
  jsonSchema: { type: 'string', format: 'uuid' },
};

/** The body's shape; its rules (name length, the logo) are the service's, as for the graph. */
const SalesUnitPatch = Type.Object({
  name: Type.Optional(Type.String()),
  salesUnitLogo: Type.Optional(Type.String()),
  status: Type.Optional(stringEnum(['ACTIVE', 'DEACTIVATED'] as const)),
});

const salesUnitPatchBody = declareBody(SalesUnitPatch, { toCommand: (body): SalesUnitUpdate => body });

const json = (status: number, body?: unknown) => ({ status, headers: { 'content-type': 'application/json;charset=UTF-8' }, body });

/**
 * The management API 1.0.0 (FACTS §9, spec 3): all 13 operations, Idea/proposal ones included, for merchants and
 * partners. Most operations act for the principal as a whole; those about one merchant (`scope: 'merchant'`)
 * require a partner to name the merchant's MSN.
 */
export function managementRoutes(services: Services): RestInterface {
  return defineRestInterface(
    services,
    {
      name: 'Management API',
      prefix: '/management/v1',
      errorFormat: managementProblem,
      auth: MANAGEMENT_AUTH,
      headers: MANAGEMENT_HEADERS,
    },
    (route) => [
      route({
        method: 'GET',
        path: '/merchants',
        summary: 'The merchants (organisation numbers) with sales units of the caller',
        idempotent: false,
        success: { status: 200, description: '{MerchantList: [Merchant]}' },
        handler: async (ctx) => json(200, { MerchantList: await listMerchants(ctx) }),
      }),
      route({
        method: 'GET',
        path: '/merchants/{orgno}',
        summary: 'A merchant by organisation number (a partner needs the merchant’s consent)',
        scope: 'merchant',
        idempotent: false,
        params: { orgno: orgnoParam },
        success: { status: 200, description: '{data: Merchant}' },
        handler: async (ctx, { params }) => {
          return json(200, { data: await getMerchant(ctx, params.orgno) });
        },
      }),
      route({
        method: 'GET',
        path: '/merchants/{orgno}/contracts',
        summary: 'Links to the merchant’s contracts (PDF served by the service)',
        scope: 'merchant',
        idempotent: false,
        params: { orgno: orgnoParam },
        success: { status: 200, description: '{urls: [string]}' },
        handler: async (ctx, { params }) => {
          return json(200, await merchantContracts(ctx, params.orgno));
        },
      }),
      route({
        method: 'GET',
        path: '/merchants/{orgno}/contracts/agreement.pdf',
        summary: 'The merchant’s agreement as a PDF (the link the contracts operation returns)',
        scope: 'merchant',
        idempotent: false,
        params: { orgno: orgnoParam },
        success: { status: 200, description: 'application/pdf' },
        handler: async (ctx, { params }) => {
          const merchant = await getMerchant(ctx, params.orgno);
          return { status: 200, headers: { 'content-type': 'application/pdf' }, body: contractPdf(merchant) };
        },
      }),
      route({
        method: 'GET',
        path: '/merchants/{orgno}/sales-units',
        summary: 'The MSNs of the merchant’s sales units the caller sees (a partner: those connected to it)',
        scope: 'merchant',
        idempotent: false,
        params: { orgno: orgnoParam },
        success: { status: 200, description: '[MSN]' },
        handler: async (ctx, { params }) => {
          return json(200, await merchantSalesUnits(ctx, params.orgno));
        },
      }),
      // Management 1.1.x: the merchant by business identifier, `{scheme}/{id}`, beside 1.0.0's `{orgno}` (declared
      // after those, so `/merchants/{orgno}/contracts` is never read as a scheme and an id).
      route({
        method: 'GET',
        path: '/merchants/{scheme}/{id}',
        summary: 'A merchant by business identifier, e.g. business:NO:ORG/920000002 (1.1.x; a partner needs the merchant’s consent)',
        scope: 'merchant',
        idempotent: false,
        params: { scheme: schemeParam, id: businessIdParam },
        success: { status: 200, description: 'Merchant (1.1.x)' },
        handler: async (ctx, { params }) => {
          return json(200, await merchantByIdentifier(ctx, params));
        },
      }),
      route({
        method: 'GET',
        path: '/merchants/{scheme}/{id}/contracts',
        summary: 'Links to the merchant’s contracts, by business identifier (1.1.x)',
        scope: 'merchant',
        idempotent: false,
        params: { scheme: schemeParam, id: businessIdParam },
        success: { status: 200, description: '{urls: [string]}' },
        handler: async (ctx, { params }) => {
          return json(200, await merchantContracts(ctx, orgnoOf(params)));
        },
      }),
      route({
        method: 'GET',
        path: '/merchants/{scheme}/{id}/sales-units',
        summary: 'The merchant’s sales units the caller sees, by business identifier (1.1.x: [{msn, name}])',
        scope: 'merchant',
        idempotent: false,
        params: { scheme: schemeParam, id: businessIdParam },
        success: { status: 200, description: '[MsnInfo]' },
        handler: async (ctx, { params }) => {
          return json(200, await salesUnitsByIdentifier(ctx, params));
        },
      }),
      route({
        method: 'GET',
        path: '/sales-units',
        summary: 'The MSNs of every sales unit the caller has access to',
        idempotent: false,
        success: { status: 200, description: '[MSN]' },
        handler: async (ctx) => json(200, await allSalesUnits(ctx)),
      }),
      route({
        method: 'GET',
        path: '/sales-units/{msn}',
        summary: 'A sales unit’s details',
        scope: 'merchant',
        idempotent: false,
        params: { msn: msnParam },
        success: { status: 200, description: 'SalesUnit' },
        handler: async (ctx, { params }) => {
          return json(200, await salesUnitDetails(ctx, params.msn));
        },
      }),
      route({
        method: 'PATCH',
        path: '/sales-units/{msn}',
        summary: 'Changes a sales unit’s name, logo or status (DEACTIVATED refuses new payments)',
        scope: 'merchant',
        idempotent: false,
        params: { msn: msnParam },
        body: salesUnitPatchBody,
        success: { status: 200, description: 'No body' },
        handler: async (ctx, { params, body }) => {
          await updateSalesUnit(ctx, params.msn, body);
          return { status: 200 };
        },
      }),
      route({
        method: 'POST',
        path: '/product-orders',
        summary: 'Pre-fills a product order for a merchant (partners)',
        idempotent: true,
        body: managementProductOrderBody,
        success: { status: 201, description: '{prefilledOrderId, prefillUrl, prefillStatus}' },
        handler: async (ctx, { body, idempotencyKey }) => {
          return json(201, await createProductOrder(ctx, body, checkIdempotencyKeyFormat(idempotencyKey)));
        },
      }),
      route({
        method: 'GET',
        path: '/product-orders/{prefilledOrderId}',
        summary: 'A product order’s prefill status',
        idempotent: false,
        params: { prefilledOrderId: orderIdParam },
        success: { status: 200, description: '{prefilledOrderId, prefillStatus}' },
        handler: async (ctx, { params }) => json(200, await readProductOrder(ctx, params.prefilledOrderId)),
      }),
      route({
        method: 'DELETE',
        path: '/product-orders/{prefilledOrderId}',
        summary: 'Undoes a product order the merchant has not submitted',
        idempotent: false,
        params: { prefilledOrderId: orderIdParam },
        success: { status: 200, description: 'No body' },
        handler: async (ctx, { params }) => {
          await deleteProductOrder(ctx, params.prefilledOrderId);
          return { status: 200 };
        },
      }),
      route({
        method: 'GET',
        path: '/partners/whoami',
        summary: 'The calling partner',
        idempotent: false,
        success: { status: 200, description: 'Partner' },
        handler: async (ctx) => json(200, await whoami(ctx)),
      }),
      route({
        method: 'GET',
        path: '/partners/price-packages',
        summary: 'The price packages a product order may name',
        idempotent: false,
        success: { status: 200, description: '[PricePackage]' },
        handler: async (ctx) => json(200, await pricePackages(ctx)),
      }),
      route({
        method: 'GET',
        path: '/api-quality/sales-units/{msn}',
        summary: 'Requests made for the sales unit per endpoint and status',
        scope: 'merchant',
        idempotent: false,
        params: { msn: msnParam },
        success: { status: 200, description: '{ApiQualityItems: [...]}' },
        handler: async (ctx, { params }) => {
          return json(200, { ApiQualityItems: await apiQuality(ctx, services, params.msn) });
        },
      }),
    ],
  );
}
