import type { HeaderRules } from '../platform/auth/header-rules.js';
import type { Services } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import { managementProblem } from './management-problem.js';
import type { HttpResponse } from '../platform/rest/http-types.js';
import { defineRestInterface, type RestInterface } from '../platform/rest/rest-interface.js';
import { randomUUID } from 'node:crypto';
import { checkIdempotencyKeyFormat, MANAGEMENT_AUTH } from './management-api.js';
import { merchantSalesUnits, salesUnitDetails } from './management.service.js';
import { msnParam, orgnoParam } from './management.routes.js';
import { createProductOrder } from './product-order.service.js';
import { partnerProductOrderBody } from './product-order.schemas.js';

/** Spec 3: the subscription key (with the access token); system headers optional, up to 30 characters. */
const PARTNER_API_HEADERS: HeaderRules = { msn: 'optional', systemHeaders: { presence: 'optional', maxLength: 30 } };

/** Refusals that are about what the order means, not its shape: the partner API answers them with 422. */
const UNPROCESSABLE = new Set([
  'ORG_NUMBER_MALFORMED',
  'ORG_NUMBER_NOT_FOUND',
  'ORG_NUMBER_SUB_ENTITY',
  'ORG_NUMBER_NOT_ACTIVE',
  'PRICE_PACKAGE_NOT_FOUND',
  'PRICE_PACKAGE_NOT_APPLICABLE',
]);

/** Every answer of the deprecated interface names its replacement (RFC 9745 `Deprecation`, RFC 8594 `Link`). */
function deprecated(response: HttpResponse, successor: string): HttpResponse {
  return {
    ...response,
    headers: {
      'content-type': 'application/json;charset=UTF-8',
      ...response.headers,
      deprecation: '@1696118400',
      sunset: 'Sun, 31 Dec 2023 23:59:59 GMT',
      link: `<${successor}>; rel="successor-version"`,
    },
  };
}

/**
 * The partner API 2.0.0 (spec 3, partner-v2.yaml), deprecated and replaced by the management API: the same services
 * with this interface's paths, shapes and statuses (200 for an order, 422 for a semantically invalid one).
 */
export function partnerApiRoutes(services: Services): RestInterface {
  return defineRestInterface(
    services,
    {
      name: 'Partner API (deprecated)',
      prefix: '/partner-api',
      errorFormat: managementProblem,
      auth: MANAGEMENT_AUTH,
      headers: PARTNER_API_HEADERS,
    },
    (route) => [
      route({
        method: 'POST',
        path: '/v1/products/orders',
        summary: 'Deprecated: use POST /management/v1/product-orders',
        idempotent: false,
        body: partnerProductOrderBody,
        success: { status: 200, description: '{prefilledOrderId, returnUrl}' },
        handler: async (ctx, { body, lookupHeader }) => {
          const sent = lookupHeader('Idempotency-Key');
          // Recommended here, not required: without one, the order is made once per request.
          const key = sent === undefined ? `partner-api-${randomUUID()}` : checkIdempotencyKeyFormat(sent);
          try {
            const created = await createProductOrder(ctx, body, key);
            return deprecated(
              { status: 200, body: { prefilledOrderId: created.prefilledOrderId, returnUrl: created.prefillUrl } },
              '/management/v1/product-orders',
            );
          } catch (error) {
            if (error instanceof AppError && UNPROCESSABLE.has(error.code)) {
              throw new AppError('PRODUCT_ORDER_UNPROCESSABLE', error.message, error.details);
            }
            throw error;
          }
        },
      }),
      route({
        method: 'GET',
        path: '/v0/merchants/{orgno}',
        summary: 'Deprecated: use GET /management/v1/merchants/{orgno}/sales-units',
        idempotent: false,
        params: { orgno: orgnoParam },
        success: { status: 200, description: '{msn: [MSN]}' },
        handler: async (ctx, { params }) =>
          deprecated(
            { status: 200, body: { msn: await merchantSalesUnits(ctx, params.orgno) } },
            `/management/v1/merchants/${params.orgno}`,
          ),
      }),
      route({
        method: 'GET',
        path: '/v0/salesunits/{msn}',
        summary: 'Deprecated: use GET /management/v1/sales-units/{msn}',
        idempotent: false,
        params: { msn: msnParam },
        success: { status: 200, description: '{msn, name, orgno, additionalDetails}' },
        handler: async (ctx, { params }) => {
          const unit = await salesUnitDetails(ctx, params.msn);
          return deprecated(
            {
              status: 200,
              body: {
                msn: unit.msn,
                name: unit.name,
                orgno: unit.businessIdentifier.id,
                additionalDetails: {
                  skipLandingPage: unit.configuration.skipLandingPageAllowed,
                  isPureLogin: false,
                  captureType: unit.configuration.captureType,
                  recurring: unit.configuration.recurringAllowed,
                },
              },
            },
            `/management/v1/sales-units/${params.msn}`,
          );
        },
      }),
    ],
  );
}
