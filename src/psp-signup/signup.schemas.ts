import Type, { type Static } from 'typebox';
import type { BodyShape } from '../platform/rest/body-shape.js';
import { declareBody, isJsonObject } from '../platform/validation/declare-body.js';
import { REASONS } from '../platform/validation/error-details.js';
import { logoDetails } from './signup.rules.js';

/** The PSP signup bodies (FACTS §7, `OA/psp-signup-v1.yaml#/components/schemas`). */

const EMAIL =
  '^[a-zA-Z0-9.!#$%&*+\\/=?^_{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$';
const Email = Type.String({ maxLength: 255, pattern: EMAIL, [REASONS]: { pattern: 'Must be an email address' } });
const Website = Type.String({
  maxLength: 255,
  pattern: '^https?://[^\\s/$.?#][^\\s]*\\.[a-zA-Z]{2,}([/?#][^\\s]*)?$',
  [REASONS]: { pattern: 'Must be an http(s) URI with a host name' },
});
const Mcc = Type.String({ pattern: '^[0-9]{4}$', [REASONS]: { pattern: 'Must be 4 digits (ISO 18245)' } });
const Name = Type.String({ minLength: 1, maxLength: 200 });
const Logo = Type.String({ minLength: 1, maxLength: 2_000_000 });

const Address = Type.Object({
  addressLine1: Type.String({ minLength: 1, maxLength: 255 }),
  addressLine2: Type.Optional(Type.String({ maxLength: 255 })),
  city: Type.String({ minLength: 1, maxLength: 255 }),
  postCode: Type.String({ minLength: 1, maxLength: 10, pattern: '^[A-Za-z0-9 ]+$', [REASONS]: { pattern: 'Letters, digits and spaces' } }),
  country: Type.String({ pattern: '^[A-Z]{2}$', [REASONS]: { pattern: 'Must be a two-letter country code (ISO 3166-1)' } }),
});

const CreateMerchantRequest = Type.Object({
  organizationNumber: Type.String({ minLength: 1, maxLength: 50 }),
  name: Name,
  mccCode: Mcc,
  logo: Logo,
  email: Type.Optional(Email),
  website: Type.Optional(Website),
  address: Address,
  companyName: Type.String({ minLength: 1, maxLength: 255 }),
  companyEmail: Email,
});
export type CreateSignupMerchantCommand = Static<typeof CreateMerchantRequest>;

export const createMerchantBody: BodyShape<CreateSignupMerchantCommand> = declareBody(CreateMerchantRequest, {
  fieldRules: (body, details) =>
    isJsonObject(body) && typeof body.logo === 'string' && !details.some((d) => d.name === 'logo') ? logoDetails(body.logo) : [],
  toCommand: (body) => body,
});

const UpdateMerchantRequest = Type.Object({
  deactivate: Type.Optional(Type.Boolean()),
  name: Type.Optional(Name),
  mccCode: Type.Optional(Mcc),
  logo: Type.Optional(Logo),
  email: Type.Optional(Email),
  website: Type.Optional(Website),
  address: Type.Optional(Address),
});
export type UpdateSignupMerchantCommand = Static<typeof UpdateMerchantRequest>;

export const updateMerchantBody: BodyShape<UpdateSignupMerchantCommand> = declareBody(UpdateMerchantRequest, {
  fieldRules: (body, details) =>
    isJsonObject(body) && typeof body.logo === 'string' && !details.some((d) => d.name === 'logo') ? logoDetails(body.logo) : [],
  crossFieldRules: (body) =>
    isJsonObject(body) && Object.keys(body).length === 0 ? [{ name: 'body', reason: 'At least one property is required' }] : [],
  toCommand: (body) => body,
});
