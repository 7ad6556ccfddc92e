import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { Merchant } from '../merchants/merchant.entity.js';
import { PspMerchant } from '../merchants/psp.entity.js';
import { SalesUnit } from '../merchants/sales-unit.entity.js';
import type { PspPrincipal } from '../platform/auth/principal.js';
import type { RequestContext } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import { runIdempotent } from '../platform/idempotency/idempotency.service.js';
import { PspSalesUnit } from '../psp/psp-payment.entity.js';
import { recordEvent } from '../platform/events/record-event.js';
import { SignupMerchant } from './signup-merchant.entity.js';
import { checkOrganizationNumber } from './signup.rules.js';
import type { CreateSignupMerchantCommand, UpdateSignupMerchantCommand } from './signup.schemas.js';

/** The signup interface names no sales unit: its idempotency keys are scoped to the PSP's client alone. */
const NO_SALES_UNIT = '';
export const MSN_PATTERN = /^\d{5,6}$/;

function pspOf(ctx: RequestContext): PspPrincipal {
  if (ctx.principal.kind !== 'psp') {
    throw new AppError('FORBIDDEN_PRINCIPAL', 'Only a PSP may sign up merchants', [
      { name: 'Authorization', reason: `Not accepted here: credentials of a ${ctx.principal.kind}` },
    ]);
  }
  return ctx.principal;
}

/** A context for signup operations: the principal's own, acting for no sales unit. */
export function signupContext(ctx: RequestContext): RequestContext {
  return { ...ctx, scope: { msn: NO_SALES_UNIT, actingFor: undefined, readsMerchantData: false } };
}

export async function listSignupMerchants(ctx: RequestContext): Promise<SignupMerchant[]> {
  const psp = pspOf(ctx);
  return ctx.em.find(SignupMerchant, { pspId: psp.pspId }, { orderBy: [{ createdAt: 'asc' }, { msn: 'asc' }] });
}

export async function getSignupMerchant(ctx: RequestContext, msn: string): Promise<SignupMerchant> {
  const psp = pspOf(ctx);
  const merchant = await ctx.em.findOne(SignupMerchant, { msn, pspId: psp.pspId });
  if (!merchant)
    throw new AppError('PSP_SIGNUP_MERCHANT_NOT_FOUND', `No merchant ${msn}`, [{ name: 'merchantSerialNumber', reason: 'Not found' }]);
  return merchant;
}

/**
 * Signs up a merchant (FACTS §7): checks its organisation number, creates the merchant, its one sales unit (which
 * takes PSP payments of this PSP at once) and the signup record, in one transaction with the idempotency record.
 * In the test environment the review passes at once (ACTIVE); elsewhere it stays PENDING until reviewed.
 */
export async function createSignupMerchant(
  ctx: RequestContext,
  command: CreateSignupMerchantCommand,
  idempotencyKey: string,
): Promise<string> {
  const psp = pspOf(ctx);
  const signup = signupContext(ctx);
  return runIdempotent(signup, { operation: 'psp-signup.create', key: idempotencyKey, request: command }, async (em) => {
    const now = ctx.clock.now();
    await checkOrganizationNumber(em, command.organizationNumber, command.address.country);
    const [row] = await em.execute<{ msn: string | number }[]>(`select nextval('psp_signup_msn_seq') as msn`);
    const msn = String(row!.msn);
    const merchantId = randomUUID();
    em.create(Merchant, { id: merchantId, name: command.companyName, orgNumber: command.organizationNumber, createdAt: now });
    await em.flush();
    em.create(SalesUnit, { msn, merchantId, name: command.name, longLivingPaymentsAllowed: false, createdAt: now });
    // The entities name no relations, so the unit of work cannot order the inserts by foreign key: flush in steps.
    await em.flush();
    em.create(PspMerchant, { pspId: psp.pspId, merchantId, createdAt: now });
    em.create(PspSalesUnit, { msn, pspId: psp.pspId, skipLandingPageAllowed: false, active: true, createdAt: now });
    const status = ctx.config.env === 'test' ? 'ACTIVE' : 'PENDING';
    em.create(SignupMerchant, {
      msn,
      pspId: psp.pspId,
      merchantId,
      organizationNumber: command.organizationNumber,
      companyName: command.companyName,
      companyEmail: command.companyEmail,
      name: command.name,
      mccCode: command.mccCode,
      logo: command.logo,
      email: command.email ?? null,
      website: command.website ?? null,
      address: command.address,
      status,
      createdAt: now,
      updatedAt: now,
    });
    recordEvent(em, {
      streamType: 'psp-signup-merchant',
      streamId: msn,
      msn,
      name: 'psp.merchant.created.v1',
      payload: { merchantSerialNumber: msn, status },
      occurredAt: now,
    });
    await em.flush();
    return msn;
  });
}

/** PATCH: at least one property; `deactivate: true` is final (its sales unit stops taking PSP payments). */
export async function updateSignupMerchant(ctx: RequestContext, msn: string, command: UpdateSignupMerchantCommand): Promise<void> {
  const psp = pspOf(ctx);
  await ctx.em.transactional(async (em) => {
    const now = ctx.clock.now();
    const merchant = await em.findOne(SignupMerchant, { msn, pspId: psp.pspId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!merchant)
      throw new AppError('PSP_SIGNUP_MERCHANT_NOT_FOUND', `No merchant ${msn}`, [{ name: 'merchantSerialNumber', reason: 'Not found' }]);
    if (merchant.status === 'DEACTIVATED') {
      throw new AppError('PSP_SIGNUP_MERCHANT_DEACTIVATED', `Merchant ${msn} is deactivated and cannot be updated`, [
        { name: 'merchantSerialNumber', reason: 'Deactivated: cannot be activated or updated' },
      ]);
    }
    const { deactivate, ...fields } = command;
    for (const [key, value] of Object.entries(fields)) if (value !== undefined) (merchant as Record<string, unknown>)[key] = value;
    if (deactivate) {
      merchant.status = 'DEACTIVATED';
      const unit = await em.findOne(PspSalesUnit, { msn });
      if (unit) unit.active = false;
    }
    merchant.updatedAt = now;
    recordEvent(em, {
      streamType: 'psp-signup-merchant',
      streamId: msn,
      msn,
      name: deactivate ? 'psp.merchant.deactivated.v1' : 'psp.merchant.updated.v1',
      payload: { merchantSerialNumber: msn, status: merchant.status },
      occurredAt: now,
    });
  });
}

/** The REST and graph shape of a signed-up merchant (FACTS §7 `Merchant`). */
export function merchantResponse(m: SignupMerchant) {
  return {
    organizationNumber: m.organizationNumber,
    companyName: m.companyName,
    companyEmail: m.companyEmail,
    merchantSerialNumber: m.msn,
    name: m.name,
    mccCode: m.mccCode ?? null,
    status: m.status,
    email: m.email ?? null,
    website: m.website ?? null,
    createdAt: m.createdAt.toISOString(),
    updatedAt: m.updatedAt.toISOString(),
    address: m.address,
  };
}
