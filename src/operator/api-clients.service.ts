import { randomUUID } from 'node:crypto';
import { Partner } from '../merchants/partner.entity.js';
import { Psp } from '../merchants/psp.entity.js';
import { ApiClient, type ApiClientKind } from '../platform/auth/api-client.entity.js';
import { digest } from '../platform/auth/digest.js';
import type { Em } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { notFound, requireMerchant, type OperatorCall } from './onboarding.service.js';
import { newSecret } from './operator-credentials.js';
import { recordOperatorAction } from './operator-action.js';

/** Kinds of client owned by nobody: the operator's own tools, and wallet apps (which act for their own users). */
export type UnownedClientKind = 'operator' | 'wallet';
export type OwnedClientKind = Exclude<ApiClientKind, UnownedClientKind>;

/** Whose client it is: a merchant's, partner's or PSP's (by id), or the operator's own or a wallet app's (owned by nobody). */
export type ClientOwner = { kind: OwnedClientKind; id: string } | { kind: UnownedClientKind };

/** A new client's credentials: the secret and subscription key exist only in this answer (stored as digests). */
export type IssuedCredentials = {
  clientId: string;
  clientSecret: string;
  subscriptionKey: string;
} & ({ kind: OwnedClientKind; ownerId: string } | { kind: UnownedClientKind; ownerId: null });

export async function createApiClient(
  call: OperatorCall,
  owner: ClientOwner,
  clientId: string = `${owner.kind}-${randomUUID()}`,
): Promise<IssuedCredentials> {
  const clientSecret = newSecret();
  const subscriptionKey = newSecret();
  await call.em.transactional(async (em) => {
    await requireOwner(em, owner);
    if (await em.findOne(ApiClient, { clientId })) {
      throw new AppError('OPERATOR_CONFLICT', `Client ${clientId} exists already`, [{ name: 'clientId', reason: 'Taken' }]);
    }
    em.create(ApiClient, {
      clientId,
      clientSecretDigest: digest(clientSecret),
      subscriptionKeyDigest: digest(subscriptionKey),
      kind: owner.kind,
      merchantId: owner.kind === 'merchant' ? owner.id : null,
      partnerId: owner.kind === 'partner' ? owner.id : null,
      pspId: owner.kind === 'psp' ? owner.id : null,
      previousClientSecretDigest: null,
      previousSecretRetiresAt: null,
      createdAt: call.now,
    });
    recordOperatorAction(em, {
      actor: call.actor,
      name: 'api-client.created',
      subject: { clientId, kind: owner.kind, ownerId: 'id' in owner ? owner.id : null },
      at: call.now,
    });
  });
  const credentials = { clientId, clientSecret, subscriptionKey };
  return 'id' in owner ? { ...credentials, kind: owner.kind, ownerId: owner.id } : { ...credentials, kind: owner.kind, ownerId: null };
}

export interface RotatedSecret {
  clientId: string;
  clientSecret: string;
  /** Until when the secret it replaces still works. */
  previousSecretRetiresAt: Date;
}

/**
 * A new secret for a client; the current one keeps working until `overlapMs` has passed (or `retireSecret`), so the
 * owner can deploy the new one first. A second rotation within the overlap retires the oldest at once: only one
 * previous secret is ever kept. The subscription key stays, so tokens issued before keep working until they expire.
 */
export async function rotateSecret(call: OperatorCall, input: { clientId: string; overlapMs: number }): Promise<RotatedSecret> {
  const clientSecret = newSecret();
  const retiresAt = new Date(call.now.getTime() + input.overlapMs);
  await call.em.transactional(async (em) => {
    const client = await requireClient(em, input.clientId);
    client.previousClientSecretDigest = client.clientSecretDigest;
    client.previousSecretRetiresAt = retiresAt;
    client.clientSecretDigest = digest(clientSecret);
    recordOperatorAction(em, {
      actor: call.actor,
      name: 'api-client.secret-rotated',
      subject: { clientId: client.clientId, previousSecretRetiresAt: retiresAt.toISOString() },
      at: call.now,
    });
  });
  return { clientId: input.clientId, clientSecret, previousSecretRetiresAt: retiresAt };
}

/** Ends the overlap now: only the newest secret works from here on. */
export async function retireSecret(call: OperatorCall, input: { clientId: string }): Promise<void> {
  await call.em.transactional(async (em) => {
    const client = await requireClient(em, input.clientId);
    client.previousClientSecretDigest = null;
    client.previousSecretRetiresAt = null;
    recordOperatorAction(em, {
      actor: call.actor,
      name: 'api-client.secret-retired',
      subject: { clientId: client.clientId },
      at: call.now,
    });
  });
}

async function requireClient(em: Em, clientId: string): Promise<ApiClient> {
  const client = await em.findOne(ApiClient, { clientId });
  if (!client) throw notFound('clientId', `Client ${clientId}`);
  return client;
}

async function requireOwner(em: Em, owner: ClientOwner): Promise<void> {
  if (!('id' in owner)) return;
  if (owner.kind === 'merchant') await requireMerchant(em, owner.id);
  else if (owner.kind === 'partner') {
    if (!(await em.findOne(Partner, { id: owner.id }))) throw notFound('partnerId', `Partner ${owner.id}`);
  } else if (!/^[0-9a-f-]{36}$/i.test(owner.id) || !(await em.findOne(Psp, { id: owner.id }))) throw notFound('pspId', `PSP ${owner.id}`);
}
