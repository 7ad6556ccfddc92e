import { randomUUID } from 'node:crypto';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { MSN_PATTERN } from '../platform/auth/header-rules.js';
import { requireActiveMainEntity } from '../business-registry/business-registry.service.js';
import { Merchant } from '../merchants/merchant.entity.js';
import { Partner, PartnerSalesUnit } from '../merchants/partner.entity.js';
import { Psp } from '../merchants/psp.entity.js';
import { SalesUnit, type CaptureType } from '../merchants/sales-unit.entity.js';
import type { Em } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { newMsn, newPartnerId } from './operator-credentials.js';
import { recordOperatorAction, type OperatorActor } from './operator-action.js';
import './operator.errors.js';

/**
 * The back office's onboarding: partners, merchants (checked against the business registry), sales units, PSPs and
 * the links between them. Each action is one transaction with its operator event. Both ways in (the command line
 * and the operator mutations) call these, so they agree.
 */
export interface OperatorCall {
  em: Em;
  actor: OperatorActor;
  now: Date;
}

export async function createPartner(call: OperatorCall, input: { name: string; id?: string }): Promise<Partner> {
  const id = input.id ?? newPartnerId();
  return call.em.transactional(async (em) => {
    if (await em.findOne(Partner, { id }))
      throw new AppError('OPERATOR_CONFLICT', `Partner ${id} exists already`, [{ name: 'id', reason: 'Taken' }]);
    const partner = em.create(Partner, { id, name: required(input.name, 'name'), status: 'ACTIVE', createdAt: call.now });
    recordOperatorAction(em, { actor: call.actor, name: 'partner.created', subject: { partnerId: id }, at: call.now });
    return partner;
  });
}

/**
 * One merchant per organisation number (the database's unique index holds it against a concurrent create too): a
 * second create is refused naming the merchant that has it.
 */
export async function createMerchant(call: OperatorCall, input: { orgNumber: string; name?: string }): Promise<Merchant> {
  const created = call.em.transactional(async (em) => {
    const entry = await requireActiveMainEntity(em, input.orgNumber, 'orgNumber');
    const existing = await em.findOne(Merchant, { orgNumber: entry.orgNumber, signedUpByPsp: false, duplicateOf: null });
    if (existing) throw orgNumberTaken(entry.orgNumber, existing.id);
    const merchant = em.create(Merchant, {
      id: randomUUID(),
      name: input.name === undefined ? entry.name : required(input.name, 'name'),
      orgNumber: entry.orgNumber,
      status: 'ACTIVE',
      createdAt: call.now,
    });
    recordOperatorAction(em, {
      actor: call.actor,
      name: 'merchant.created',
      subject: { merchantId: merchant.id, orgNumber: entry.orgNumber },
      at: call.now,
    });
    return merchant;
  });
  return created.catch((error: unknown) => {
    if (error instanceof UniqueConstraintViolationException) throw orgNumberTaken(input.orgNumber);
    throw error;
  });
}

function orgNumberTaken(orgNumber: string, merchantId?: string): AppError {
  const holder = merchantId === undefined ? 'Another merchant' : `Merchant ${merchantId}`;
  const reason = `${holder} has organisation number ${orgNumber} already (one merchant per organisation)`;
  return new AppError('OPERATOR_CONFLICT', reason, [{ name: 'orgNumber', reason }]);
}

export interface NewSalesUnit {
  merchantId: string;
  name: string;
  msn?: string;
  captureType?: CaptureType;
  longLivingPaymentsAllowed?: boolean;
  skipLandingPageAllowed?: boolean;
  recurringAllowed?: boolean;
}

export async function createSalesUnit(call: OperatorCall, input: NewSalesUnit): Promise<SalesUnit> {
  const msn = input.msn ?? newMsn();
  if (!MSN_PATTERN.test(msn)) throw invalid('msn', 'A merchant serial number is 4 to 6 digits');
  const captureType = input.captureType ?? 'ReserveCapture';
  if (!['ReserveCapture', 'DirectCapture', 'NotApplicable'].includes(captureType)) {
    throw invalid('captureType', 'ReserveCapture, DirectCapture or NotApplicable');
  }
  return call.em.transactional(async (em) => {
    const merchant = await requireMerchant(em, input.merchantId);
    if (await em.findOne(SalesUnit, { msn }))
      throw new AppError('OPERATOR_CONFLICT', `Sales unit ${msn} exists already`, [{ name: 'msn', reason: 'Taken' }]);
    const unit = em.create(SalesUnit, {
      msn,
      merchantId: merchant.id,
      name: required(input.name, 'name'),
      captureType,
      longLivingPaymentsAllowed: input.longLivingPaymentsAllowed ?? false,
      skipLandingPageAllowed: input.skipLandingPageAllowed ?? false,
      recurringAllowed: input.recurringAllowed ?? false,
      status: 'ACTIVE',
      version: 1,
      createdAt: call.now,
    });
    recordOperatorAction(em, {
      actor: call.actor,
      name: 'sales-unit.created',
      subject: { merchantId: merchant.id, msn, captureType },
      msn,
      at: call.now,
    });
    return unit;
  });
}

export async function createPsp(call: OperatorCall, input: { name: string }): Promise<Psp> {
  return call.em.transactional(async (em) => {
    const psp = em.create(Psp, { id: randomUUID(), name: required(input.name, 'name'), createdAt: call.now });
    recordOperatorAction(em, { actor: call.actor, name: 'psp.created', subject: { pspId: psp.id }, at: call.now });
    return psp;
  });
}

/** Connects a sales unit to a partner, which may then act for it; the merchant's consent to share its data is separate. */
export async function connectSalesUnit(call: OperatorCall, input: { partnerId: string; msn: string }): Promise<PartnerSalesUnit> {
  return call.em.transactional(async (em) => {
    await requirePartner(em, input.partnerId);
    if (!(await em.findOne(SalesUnit, { msn: input.msn }))) throw notFound('msn', `Sales unit ${input.msn}`);
    const existing = await em.findOne(PartnerSalesUnit, { partnerId: input.partnerId, msn: input.msn });
    if (existing) return existing;
    const link = em.create(PartnerSalesUnit, { partnerId: input.partnerId, msn: input.msn, merchantConsent: false, createdAt: call.now });
    recordOperatorAction(em, {
      actor: call.actor,
      name: 'sales-unit.connected',
      subject: { partnerId: input.partnerId, msn: input.msn },
      msn: input.msn,
      at: call.now,
    });
    return link;
  });
}

/** Records (or withdraws) a merchant's consent to share its own data with a partner its units are connected to. */
export async function setMerchantConsent(
  call: OperatorCall,
  input: { merchantId: string; partnerId: string; consent: boolean },
): Promise<string[]> {
  return call.em.transactional(async (em) => {
    const rows = await em.execute<{ msn: string }[]>(
      `update partner_sales_unit set merchant_consent = ?
       where partner_id = ? and msn in (select msn from sales_unit where merchant_id = ?) returning msn`,
      [input.consent, input.partnerId, input.merchantId],
    );
    if (rows.length === 0)
      throw notFound('partnerId', `No sales unit of merchant ${input.merchantId} connected to partner ${input.partnerId}`);
    recordOperatorAction(em, {
      actor: call.actor,
      name: input.consent ? 'merchant-consent.recorded' : 'merchant-consent.withdrawn',
      subject: { merchantId: input.merchantId, partnerId: input.partnerId },
      at: call.now,
    });
    return rows.map((r) => r.msn);
  });
}

export async function deactivatePartner(call: OperatorCall, input: { partnerId: string }): Promise<void> {
  await call.em.transactional(async (em) => {
    const partner = await requirePartner(em, input.partnerId);
    partner.status = 'DEACTIVATED';
    recordOperatorAction(em, { actor: call.actor, name: 'partner.deactivated', subject: { partnerId: partner.id }, at: call.now });
  });
}

/** A deactivated merchant's sales units are deactivated with it, so they take no new payment (sales-unit-status.ts). */
export async function deactivateMerchant(call: OperatorCall, input: { merchantId: string }): Promise<void> {
  await call.em.transactional(async (em) => {
    const merchant = await requireMerchant(em, input.merchantId);
    merchant.status = 'DEACTIVATED';
    await em.execute(
      `update sales_unit set status = 'DEACTIVATED', version = version + 1 where merchant_id = ? and status <> 'DEACTIVATED'`,
      [merchant.id],
    );
    recordOperatorAction(em, { actor: call.actor, name: 'merchant.deactivated', subject: { merchantId: merchant.id }, at: call.now });
  });
}

/** Express in ePayment for one sales unit: on (every unit's default) or off (its Express creates are refused, 5020). */
export async function setExpressEnabled(call: OperatorCall, input: { msn: string; enabled: boolean }): Promise<void> {
  await call.em.transactional(async (em) => {
    const changed = await em.execute<{ affectedRows?: number }>(
      `update sales_unit set express_enabled = ?, version = version + 1 where msn = ?`,
      [input.enabled, input.msn],
      'run',
    );
    if (!changed.affectedRows) throw notFound('msn', `Sales unit ${input.msn}`);
    recordOperatorAction(em, {
      actor: call.actor,
      name: input.enabled ? 'sales-unit.express-enabled' : 'sales-unit.express-disabled',
      subject: { msn: input.msn },
      at: call.now,
    });
  });
}

async function requirePartner(em: Em, id: string): Promise<Partner> {
  const partner = await em.findOne(Partner, { id });
  if (!partner) throw notFound('partnerId', `Partner ${id}`);
  return partner;
}

export async function requireMerchant(em: Em, id: string): Promise<Merchant> {
  const merchant = /^[0-9a-f-]{36}$/i.test(id) ? await em.findOne(Merchant, { id }) : null;
  if (!merchant) throw notFound('merchantId', `Merchant ${id}`);
  return merchant;
}

function required(value: string | undefined, field: string): string {
  if (!value || value.trim() === '') throw invalid(field, 'Required');
  return value.trim();
}

function invalid(field: string, reason: string): AppError {
  return new AppError('OPERATOR_INVALID', `${field}: ${reason}`, [{ name: field, reason }]);
}

export function notFound(field: string, what: string): AppError {
  return new AppError('OPERATOR_NOT_FOUND', `${what} does not exist`, [{ name: field, reason: 'Not found' }]);
}
