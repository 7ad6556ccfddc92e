import Type, { type Static } from 'typebox';
import type { BodyShape } from '../platform/rest/body-shape.js';
import { ALIASES } from '../platform/validation/compiled-schema.js';
import { declareBody, isJsonObject } from '../platform/validation/declare-body.js';
import { REASONS } from '../platform/validation/error-details.js';
import { stringEnum } from '../platform/validation/string-enum.js';
import { PRODUCT_TYPES, PRODUCT_USE_CASES } from './product-order.entity.js';
import {
  productOrderCrossFieldProblems,
  productOrderFieldProblems,
  WEBSITE_URL_PATTERN,
  type ProductOrderCommand,
} from './product-order.rules.js';

const UUID = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const HttpsUrl = Type.String({ maxLength: 2048, pattern: WEBSITE_URL_PATTERN.source, [REASONS]: { pattern: 'Must be an https URL' } });

/** Fields both interfaces share (management-v1.yaml `ProductOrderRequest`, partner-v2.yaml). */
const shared = {
  salesUnitName: Type.Optional(Type.String({ minLength: 1, maxLength: 30 })),
  salesUnitLogo: Type.Optional(Type.String({ minLength: 1, maxLength: 2_000_000 })),
  settlementAccountNumber: Type.Optional(Type.String({ pattern: '^[0-9]{11}$', [REASONS]: { pattern: 'Must be exactly 11 digits' } })),
  pricePackageId: Type.Optional(Type.String({ pattern: UUID, [REASONS]: { pattern: 'Must be a UUID' } })),
  // Partner clients send the platform's older names (`VIPPS_PA_NETT`), as they send `Vipps-System-*` headers.
  productType: stringEnum(PRODUCT_TYPES, {
    [ALIASES]: Object.fromEntries(PRODUCT_TYPES.map((type) => [type.replace(/^SVC_/, 'VIPPS_'), type])),
  }),
  productUseCase: Type.Optional(stringEnum(PRODUCT_USE_CASES)),
  intendedPurpose: Type.Optional(Type.String({ maxLength: 2000 })),
  website: Type.Optional(
    Type.Object({
      url: HttpsUrl,
      termsUrl: HttpsUrl,
      testWebsiteUrl: Type.Optional(HttpsUrl),
      testWebsiteUsername: Type.Optional(Type.String({ maxLength: 200 })),
      testWebsitePassword: Type.Optional(Type.String({ maxLength: 200 })),
    }),
  ),
  complianceData: Type.Optional(Type.Object({}, { additionalProperties: true })),
};

const ManagementProductOrder = Type.Object({
  businessIdentifier: Type.Object({
    scheme: Type.Literal('business:NO:ORG'),
    id: Type.String({ pattern: '^[0-9]{9}$', [REASONS]: { pattern: 'Must be a 9-digit organisation number' } }),
  }),
  ...shared,
  annualTurnover: Type.Optional(Type.Integer({ minimum: 0, maximum: 999_999_999 })),
});

const PartnerProductOrder = Type.Object({
  orgno: Type.String({ pattern: '^[0-9]{9}$', [REASONS]: { pattern: 'Must be a 9-digit organisation number' } }),
  ...shared,
  annualTurnover: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
});

type Shared = Omit<Static<typeof ManagementProductOrder>, 'businessIdentifier' | 'annualTurnover'>;

function command(body: Shared & { annualTurnover?: number }, orgNumber: string, orgNumberField: string): ProductOrderCommand {
  return { ...body, orgNumber, orgNumberField } as ProductOrderCommand;
}

export const managementProductOrderBody: BodyShape<ProductOrderCommand> = declareBody(ManagementProductOrder, {
  fieldRules: (body) => (isJsonObject(body) ? productOrderFieldProblems(body as Partial<ProductOrderCommand>) : []),
  crossFieldRules: (body) => (isJsonObject(body) ? productOrderCrossFieldProblems(body as Partial<ProductOrderCommand>) : []),
  toCommand: ({ businessIdentifier, ...rest }) => command(rest, businessIdentifier.id, 'businessIdentifier.id'),
});

/** The deprecated partner interface: `orgno` instead of `businessIdentifier`, `productUseCase` default `Website`. */
export const partnerProductOrderBody: BodyShape<ProductOrderCommand> = declareBody(PartnerProductOrder, {
  fieldRules: (body) => (isJsonObject(body) ? productOrderFieldProblems(body as Partial<ProductOrderCommand>) : []),
  crossFieldRules: (body) => (isJsonObject(body) ? productOrderCrossFieldProblems(body as Partial<ProductOrderCommand>) : []),
  toCommand: ({ orgno, ...rest }) => command({ productUseCase: 'Website', ...rest }, orgno, 'orgno'),
});
