import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import { Merchant } from '../merchants/merchant.entity.js';
import { PspMerchant } from '../merchants/psp.entity.js';
import { SalesUnit } from '../merchants/sales-unit.entity.js';
import type { RequestContext } from '../platform/context.js';
import { principalScope, type PrincipalScope } from '../platform/auth/tenancy-scope.js';
import { AppError } from '../platform/errors/app-error.js';
import { insertOf, runOperation } from '../platform/db/run-operation.js';
import { PspSalesUnit } from '../psp/psp-payment.entity.js';
import { pspOf } from '../psp/psp-payment.service.js';
import { recordEvent, type NewEvent } from '../platform/events/record-event.js';
import { SignupMerchant } from './signup-merchant.entity.js';
import { checkOrganizationNumber } from './signup.rules.js';
import type { CreateSignupMerchantCommand, UpdateSignupMerchantCommand } from './signup.schemas.js';

export const MSN_PATTERN = /^\d{5,6}$/;

/** A context for signup operations: the principal's own, acting for no sales unit (an MSN sent is not narrowed to). */
export function signupContext(ctx: RequestContext): RequestContext<PrincipalScope> {
  return { ...ctx, scope: principalScope() };
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
  return runOperation(signupContext(ctx), {
    key: { operation: 'psp-signup.create', key: idempotencyKey, request: command },
    readMore: async (_, em) => {
      await checkOrganizationNumber(em, command.organizationNumber, command.address.country);
      const [row] = await em.execute<{ msn: string | number }[]>(`select nextval('psp_signup_msn_seq') as msn`);
      return String(row!.msn);
    },
    // One statement writes the rows (their foreign keys are checked at its end) and the event.
    decide: (_, msn) => {
      const now = ctx.clock.now();
      const merchantId = randomUUID();
      const status = ctx.config.env === 'test' ? 'ACTIVE' : 'PENDING';
      return {
        inserts: [
          insertOf(Merchant, {
            id: merchantId,
            name: command.companyName,
            orgNumber: command.organizationNumber,
            status: 'ACTIVE',
            // Every signup is a merchant of its own: org numbers are unique among the back office's merchants only.
            signedUpByPsp: true,
            duplicateOf: null,
            createdAt: now,
          }),
          insertOf(SalesUnit, {
            msn,
            merchantId,
            name: command.name,
            longLivingPaymentsAllowed: false,
            status: 'ACTIVE',
            captureType: 'ReserveCapture',
            skipLandingPageAllowed: false,
            recurringAllowed: false,
            expressEnabled: true,
            logo: null,
            version: 1,
            createdAt: now,
          }),
          insertOf(PspMerchant, { pspId: psp.pspId, merchantId, createdAt: now }),
          // It takes PSP payments of this PSP at once.
          insertOf(PspSalesUnit, { msn, pspId: psp.pspId, skipLandingPageAllowed: false, active: true, createdAt: now }),
          insertOf(SignupMerchant, {
            msn,
            pspId: psp.pspId,
            merchantId,
            organizationNumber: command.organizationNumber,
            companyName: command.companyName,
            companyEmail: command.companyEmail,
            name: command.name,
            mccCode: command.mccCode ?? null,
            logo: command.logo,
            email: command.email ?? null,
            website: command.website ?? null,
            address: command.address,
            status,
            createdAt: now,
            updatedAt: now,
          }),
        ],
        events: [signupMerchantEvent(msn, 'psp.merchant.created.v1', status, now)],
        value: msn,
      };
    },
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
    recordEvent(em, signupMerchantEvent(msn, deactivate ? 'psp.merchant.deactivated.v1' : 'psp.merchant.updated.v1', merchant.status, now));
  });
}

/** A signed-up merchant's event: its stream is the merchant's MSN, and it tells the merchant's status after the change. */
function signupMerchantEvent(msn: string, name: string, status: string, occurredAt: Date): NewEvent {
  return { streamType: 'psp-signup-merchant', streamId: msn, msn, name, payload: { merchantSerialNumber: msn, status }, occurredAt };
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
