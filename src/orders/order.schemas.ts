import Type from 'typebox';
import type { ErrorDetail } from '../platform/errors/app-error.js';
import type { BodyShape } from '../platform/rest/body-shape.js';
import type { ParamRule } from '../platform/rest/path-params.js';
import { declareBody } from '../platform/validation/declare-body.js';
import { REASONS } from '../platform/validation/error-details.js';
import { stringEnum } from '../platform/validation/string-enum.js';
import { orderLineTaxProblems } from './order-line-tax.js';
import { Receipt } from './receipt.schemas.js';

export const PAYMENT_TYPES = ['ecom', 'recurring'] as const;
export type PaymentType = (typeof PAYMENT_TYPES)[number];
export const ORDER_CATEGORIES = ['GENERAL', 'RECEIPT', 'ORDER_CONFIRMATION', 'DELIVERY', 'TICKET', 'BOOKING'] as const;
export type OrderCategoryName = (typeof ORDER_CATEGORIES)[number];

const CATEGORY_REASON = `Must be one of ${ORDER_CATEGORIES.join(', ')} (or null)`;
const ID_PATTERN = '^[0-9A-Za-z_.-]+$';
const ID_REASON = 'Must be 1 to 128 letters, digits, "-", "_" or "."';
/** The largest image the API accepts (FACTS §4: 2 MB). */
export const MAX_IMAGE_BYTES = 2 * 1024 * 1024;
/** The image route's body limit: a 2 MB image in base64 (4/3 of it) and the JSON around it. */
export const IMAGE_BODY_BYTES = 3 * 1024 * 1024;
export const MIN_IMAGE_HEIGHT = 167;

export const paymentTypeParam: ParamRule = {
  accepts: (value) => (PAYMENT_TYPES as readonly string[]).includes(value),
  reason: 'Must be ecom or recurring',
  jsonSchema: { type: 'string', enum: [...PAYMENT_TYPES] },
};

export const orderIdParam: ParamRule = {
  accepts: (value) => value.length <= 255 && new RegExp(ID_PATTERN).test(value),
  reason: 'Must be letters, digits, "-", "_" or "."',
  jsonSchema: { type: 'string', pattern: ID_PATTERN, maxLength: 255 },
};

export const transactionIdParam: ParamRule = {
  accepts: (value) => value.length >= 1 && value.length <= 255 && new RegExp(ID_PATTERN).test(value),
  reason: 'Must be letters, digits, "-", "_" or "."',
  jsonSchema: { type: 'string', pattern: ID_PATTERN, maxLength: 255 },
};

export interface CategoryCommand {
  category: OrderCategoryName | null;
  orderDetailsUrl: string;
  imageId: string | null;
}

const CategoryRequest = Type.Object(
  {
    // "Required, string or null" (spec "Order metadata"); the platform reads a null as absent, so absent is null too.
    category: Type.Optional(stringEnum(ORDER_CATEGORIES, { [REASONS]: { type: CATEGORY_REASON, enum: CATEGORY_REASON } })),
    orderDetailsUrl: Type.String({
      minLength: 1,
      maxLength: 2048,
      [REASONS]: { type: 'Must be a non-empty URI', minLength: 'Must be a non-empty URI' },
    }),
    imageId: Type.Optional(
      Type.Unsafe<string | null>({
        type: ['string', 'null'],
        minLength: 1,
        maxLength: 128,
        pattern: ID_PATTERN,
        [REASONS]: { type: ID_REASON, minLength: ID_REASON, maxLength: ID_REASON, pattern: ID_REASON },
      }),
    ),
  },
  { [REASONS]: { type: 'Must be a JSON object with category and orderDetailsUrl' } },
);

function isUri(value: string): boolean {
  try {
    const url = new URL(value);
    return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) && !/\s/.test(value);
  } catch {
    return false;
  }
}

/** The category request (spec "Order metadata"): the same for `PUT .../categories/{orderId}` and the deprecated `PUT /v1/orders`. */
export const categoryRequest: BodyShape<CategoryCommand> = declareBody(CategoryRequest, {
  fieldRules: (body, details): ErrorDetail[] => {
    const refused: ErrorDetail[] = [];
    if (typeof body?.orderDetailsUrl === 'string' && !details.some((d) => d.name === 'orderDetailsUrl') && !isUri(body.orderDetailsUrl))
      refused.push({ name: 'orderDetailsUrl', reason: 'Must be a non-empty URI' });
    return refused;
  },
  toCommand: (body) => ({ category: body.category ?? null, orderDetailsUrl: body.orderDetailsUrl, imageId: body.imageId ?? null }),
});

export interface ImageCommand {
  imageId: string;
  src: string;
}

const ImageRequest = Type.Object(
  {
    imageId: Type.String({
      minLength: 1,
      maxLength: 128,
      pattern: ID_PATTERN,
      [REASONS]: { type: ID_REASON, minLength: ID_REASON, maxLength: ID_REASON, pattern: ID_REASON },
    }),
    src: Type.String({ minLength: 1, [REASONS]: { type: 'Must be base64 image data', minLength: 'Must be base64 image data' } }),
    type: Type.Unsafe<'base64'>({ type: 'string', enum: ['base64'], [REASONS]: { type: 'Must be base64', enum: 'Must be base64' } }),
  },
  { [REASONS]: { type: 'Must be a JSON object with imageId, src and type' } },
);

/** The image request; whether `src` is an image we accept is the service's check (it decodes it). */
export const imageRequest: BodyShape<ImageCommand> = declareBody(ImageRequest, {
  toCommand: (body) => ({ imageId: body.imageId, src: body.src }),
});

export type ReceiptDocument = Record<string, unknown>;

/** The receipt request: the Order Management `Receipt` shared with ePayment's create (receipt.schemas.ts). */
export const receiptRequest: BodyShape<ReceiptDocument> = declareBody(Receipt, {
  fieldRules: (body) => orderLineTaxProblems(body?.orderLines, 'orderLines'),
  toCommand: (body) => body as unknown as ReceiptDocument,
});
