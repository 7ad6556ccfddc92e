import { LockMode } from '@mikro-orm/core';
import { randomBytes, randomUUID } from 'node:crypto';
import { requireActiveMainEntity } from '../business-registry/business-registry.service.js';
import type { RequestContext, Services } from '../platform/context.js';
import { forkEm, type Em } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { insertOf, runOperation } from '../platform/db/run-operation.js';
import { newestFirstOrder, olderThan, type CreatedKey } from '../platform/paging/keyset.js';
import { assertTransition } from '../platform/state-machine.js';
import { Merchant } from '../merchants/merchant.entity.js';
import { PartnerSalesUnit } from '../merchants/partner.entity.js';
import { SalesUnit } from '../merchants/sales-unit.entity.js';
import { requirePartner } from './management-access.js';
import { PRICE_PACKAGE_PRODUCT_TYPES, PricePackage } from './price-package.entity.js';
import { ProductOrder, type PrefillStatus } from './product-order.entity.js';
import { needsManualEntry, type ProductOrderCommand } from './product-order.rules.js';
import { productOrderEvent, recordProductOrderEvent } from './product-order.events.js';
import { productOrderMachine } from './product-order.transitions.js';

export interface ProductOrderCreated {
  prefilledOrderId: string;
  prefillUrl: string;
  prefillStatus: PrefillStatus;
}

/** The page where the merchant reviews and submits the order; its token is the secret of the link. */
export function prefillUrlOf(publicUrl: string, pageToken: string): string {
  return `${publicUrl}/merchant-portal/prefill?token=${pageToken}`;
}

/**
 * Pre-fills a product order for a merchant (partners only), once per Idempotency-Key: the organisation must be an
 * active main entity of the registry and the price package one that exists and fits the product type. The order,
 * its `created` event and the key's record commit together; a refusal records none of them.
 */
export async function createProductOrder(
  ctx: RequestContext,
  command: ProductOrderCommand,
  idempotencyKey: string,
): Promise<ProductOrderCreated> {
  const { partnerId } = requirePartner(ctx);
  // The same order by either interface is the same request (the field name only says where the orgno was).
  const { orgNumberField: _field, ...request } = command;
  return runOperation(ctx, {
    key: { operation: 'product-order.create', key: idempotencyKey, request },
    readMore: async (_, em) => {
      await requireActiveMainEntity(em, command.orgNumber, command.orgNumberField);
      if (command.pricePackageId) await requirePricePackage(em, command);
    },
    decide: () => {
      const manual = needsManualEntry(command);
      const status: PrefillStatus = manual ? 'WAITING_FOR_MERCHANT' : 'RECEIVED';
      const now = ctx.clock.now();
      const order: ProductOrder = {
        id: randomUUID(),
        partnerId,
        orgNumber: command.orgNumber,
        productType: command.productType,
        productUseCase: command.productUseCase ?? null,
        salesUnitName: command.salesUnitName ?? null,
        salesUnitLogo: command.salesUnitLogo ?? null,
        settlementAccountNumber: command.settlementAccountNumber ?? null,
        pricePackageId: command.pricePackageId ?? null,
        annualTurnover: command.annualTurnover ?? null,
        intendedPurpose: command.intendedPurpose ?? null,
        website: command.website ?? null,
        complianceData: command.complianceData ?? null,
        status,
        needsManualEntry: manual,
        pageToken: randomBytes(24).toString('base64url'),
        msn: null,
        createdAt: now,
        submittedAt: null,
      };
      return {
        inserts: [insertOf(ProductOrder, order)],
        events: [productOrderEvent(order, 'created', now)],
        value: { prefilledOrderId: order.id, prefillUrl: prefillUrlOf(ctx.config.publicUrl, order.pageToken), prefillStatus: status },
      };
    },
  });
}

async function requirePricePackage(em: Em, command: ProductOrderCommand): Promise<void> {
  const found = await em.findOne(PricePackage, { id: command.pricePackageId! });
  if (!found) {
    throw new AppError('PRICE_PACKAGE_NOT_FOUND', `No price package ${command.pricePackageId}`, [
      { name: 'pricePackageId', reason: 'Not a price package of the partner (GET /management/v1/partners/price-packages)' },
    ]);
  }
  if (PRICE_PACKAGE_PRODUCT_TYPES[command.productType] !== found.productType) {
    throw new AppError('PRICE_PACKAGE_NOT_APPLICABLE', `Price package ${found.id} is for ${found.productType}`, [
      { name: 'pricePackageId', reason: `A package of productType ${found.productType}; not for ${command.productType}` },
    ]);
  }
}

/** The partner's own order, not undone; otherwise 404 (another partner's order is indistinguishable from none). */
async function partnerOrder(ctx: RequestContext, id: string, em: Em = ctx.em, lock = false): Promise<ProductOrder> {
  const { partnerId } = requirePartner(ctx);
  const order = /^[0-9a-f-]{36}$/i.test(id)
    ? await em.findOne(ProductOrder, { id, partnerId }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {})
    : null;
  if (!order || order.status === 'DELETED') {
    throw new AppError('PRODUCT_ORDER_NOT_FOUND', `No product order ${id}`, [{ name: 'prefilledOrderId', reason: 'Unknown, or undone' }]);
  }
  return order;
}

export async function readProductOrder(
  ctx: RequestContext,
  id: string,
): Promise<{ prefilledOrderId: string; prefillStatus: PrefillStatus }> {
  const order = await partnerOrder(ctx, id);
  return { prefilledOrderId: order.id, prefillStatus: order.status };
}

/** Undo: only before the merchant submitted it (after, 409); an undone order reads as 404. With its `undone` event. */
export async function deleteProductOrder(ctx: RequestContext, id: string): Promise<void> {
  await ctx.em.transactional(async (em) => {
    const order = await partnerOrder(ctx, id, em, true);
    if (order.status === 'PROCESSING' || order.status === 'COMPLETED') {
      throw new AppError('PRODUCT_ORDER_ALREADY_SUBMITTED', `Product order ${id} was submitted by the merchant`, [
        { name: 'prefilledOrderId', reason: `Already ${order.status}; it can no longer be undone` },
      ]);
    }
    assertTransition(productOrderMachine, order.status, 'DELETED');
    order.status = 'DELETED';
    recordProductOrderEvent(em, order, 'undone', ctx.clock.now());
    await em.flush();
  });
}

/** The order behind a prefill page's token, for the page (no credentials: the token is the secret). */
export async function findOrderForPage(services: Services, token: string): Promise<ProductOrder | null> {
  if (!/^[A-Za-z0-9_-]{10,64}$/.test(token)) return null;
  const order = await forkEm(services.orm).findOne(ProductOrder, { pageToken: token });
  return order && order.status !== 'DELETED' ? order : null;
}

/** The merchant's answer to "do you sell gift cards?": no, under 10% of sales, or 10% or more. */
export type GiftCardShare = 'none' | 'under10' | '10orMore';

export interface MerchantEntries {
  websiteUrl?: string;
  termsUrl?: string;
  giftCards?: GiftCardShare;
}

/** What the partner left out of an order that needs it, for the merchant to fill in on the page (and only that). */
export function missingEntries(order: Pick<ProductOrder, 'needsManualEntry' | 'website' | 'complianceData'>): {
  website: boolean;
  complianceData: boolean;
} {
  return { website: order.needsManualEntry && !order.website, complianceData: order.needsManualEntry && !order.complianceData };
}

const HTTPS_ADDRESS = /^https:\/\/[^\s]+\.[a-z]{2,}/i;

/**
 * The merchant submits the order on the prefill page. In one transaction: PROCESSING, and for SVC_PA_NETT the
 * merchant (created from the registry when new), a new sales unit connected to the partner (the merchant's consent
 * to share its data is not given by this; the merchant gives it in the graph), and COMPLETED, each status with its
 * event (`submitted`, `completed`). Other product types stay PROCESSING (handled by hand): one `submitted` event.
 */
export async function submitProductOrder(
  services: Services,
  token: string,
  entries: MerchantEntries,
): Promise<{ ok: true; order: ProductOrder } | { ok: false; message: string; order: ProductOrder | null }> {
  const em = forkEm(services.orm);
  return em.transactional(async (tx) => {
    const order = await tx.findOne(
      ProductOrder,
      { pageToken: token },
      { lockMode: LockMode.PESSIMISTIC_WRITE, populate: ['salesUnitLogo'] },
    );
    if (!order || order.status === 'DELETED') return { ok: false as const, message: 'This order link is not valid.', order: null };
    if (order.status === 'PROCESSING' || order.status === 'COMPLETED') {
      return { ok: false as const, message: 'This order was already submitted.', order };
    }
    const missing = missingEntries(order);
    if (missing.website) {
      const url = entries.websiteUrl?.trim() ?? '';
      const terms = entries.termsUrl?.trim() ?? '';
      if (!HTTPS_ADDRESS.test(url) || !HTTPS_ADDRESS.test(terms)) {
        return { ok: false as const, message: 'Enter the website and the terms as https addresses.', order };
      }
      order.website = { url, termsUrl: terms };
    }
    if (missing.complianceData) {
      if (!entries.giftCards) return { ok: false as const, message: 'Say whether you sell gift cards.', order };
      // The management API's complianceData shape: giftCard is null when none are sold.
      order.complianceData = {
        giftCard: entries.giftCards === 'none' ? null : { isSalesPercentageLessThanTen: entries.giftCards === 'under10' },
      };
    }
    const now = services.clock.now();
    assertTransition(productOrderMachine, order.status, 'PROCESSING');
    order.status = 'PROCESSING';
    order.submittedAt = now;
    recordProductOrderEvent(tx, order, 'submitted', now);
    if (order.productType === 'SVC_PA_NETT') {
      const msn = await createSalesUnitFor(tx, order, now);
      assertTransition(productOrderMachine, 'PROCESSING', 'COMPLETED');
      order.status = 'COMPLETED';
      order.msn = msn;
      recordProductOrderEvent(tx, order, 'completed', now);
    }
    await tx.flush();
    return { ok: true as const, order };
  });
}

async function createSalesUnitFor(em: Em, order: ProductOrder, now: Date): Promise<string> {
  const entry = await requireActiveMainEntity(em, order.orgNumber, 'orgno');
  let merchant = await em.findOne(Merchant, { orgNumber: order.orgNumber });
  if (!merchant) {
    merchant = em.create(Merchant, { id: randomUUID(), name: entry.name, orgNumber: order.orgNumber, status: 'ACTIVE', createdAt: now });
    await em.flush();
  }
  const [row] = await em.execute<{ msn: string }[]>(`select nextval('sales_unit_msn_seq')::text as msn`);
  const msn = row!.msn;
  em.create(SalesUnit, {
    msn,
    merchantId: merchant.id,
    name: order.salesUnitName ?? entry.name.slice(0, 50),
    longLivingPaymentsAllowed: false,
    status: 'ACTIVE',
    captureType: 'ReserveCapture',
    skipLandingPageAllowed: false,
    recurringAllowed: false,
    logo: order.salesUnitLogo,
    version: 1,
    createdAt: now,
  });
  // The entities name no relations, so the unit of work does not order their inserts: each row after the one it references.
  await em.flush();
  em.create(PartnerSalesUnit, { partnerId: order.partnerId, msn, merchantConsent: false, createdAt: now });
  await em.flush();
  return msn;
}

/** The partner's product orders, newest first, after a keyset position; undone ones are left out. */
export async function listProductOrders(
  ctx: RequestContext,
  partnerId: string,
  limit: number,
  before: CreatedKey | undefined,
): Promise<ProductOrder[]> {
  const where = { partnerId, status: { $ne: 'DELETED' as const }, ...olderThan(before) };
  return ctx.em.find(ProductOrder, where, { orderBy: newestFirstOrder(), limit });
}

/** A product order of the calling partner, for `node(id:)`. */
export async function findPartnerProductOrder(ctx: RequestContext, id: string): Promise<ProductOrder | undefined> {
  if (ctx.principal.kind !== 'partner' || !/^[0-9a-f-]{36}$/i.test(id)) return undefined;
  const order = await ctx.em.findOne(ProductOrder, { id, partnerId: ctx.principal.partnerId });
  return order && order.status !== 'DELETED' ? order : undefined;
}
