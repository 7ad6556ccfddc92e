import { createHash } from 'node:crypto';
import { currentTraceParent } from '../observability/trace-context.js';
import type { Em } from '../db/orm.js';
import { callbackKinds, type CallbackKind } from './callback-kinds.js';
import { Delivery } from './delivery.entity.js';

export interface NewCallback {
  streamType: string;
  streamId: string;
  msn?: string | null;
  /** Where to POST; checked against the outbound URL policy when the recipient gave it, and again when sent. */
  url: string;
  /** The Authorization header value the recipient chose, sent verbatim. */
  authorization?: string | null;
  /** The body, serialized once here so every attempt sends the same bytes. */
  body: unknown;
}

/**
 * Records a callback in the caller's unit of work, so it commits with the change that calls for it (a crash
 * before the commit loses both, after it neither) and the callback deliverer sends it from then on.
 */
export function recordCallback(em: Em, kind: CallbackKind, callback: NewCallback, now: Date): Delivery {
  // A kind its process does not know would never be sent; failing here tells the producer at once.
  if (callbackKinds.get(kind.name) !== kind) throw new Error(`Callback kind ${kind.name} is not registered`);
  return em.create(Delivery, {
    kind: kind.name,
    // The URL receives it: fairness and per-stream order are per URL.
    receiver: callbackReceiver(callback.url),
    webhookId: null,
    eventId: null,
    streamType: callback.streamType,
    streamId: callback.streamId,
    msn: callback.msn ?? null,
    url: callback.url,
    authorizationValue: callback.authorization ?? null,
    body: typeof callback.body === 'string' ? callback.body : JSON.stringify(callback.body),
    status: 'pending',
    attemptCount: 0,
    nextAttemptAt: now,
    leaseUntil: null,
    deliveredAt: null,
    lastStatusCode: null,
    createdAt: now,
    traceParent: currentTraceParent(),
  });
}

/** A callback URL's receiver key: its MD5 digest as a uuid, as the database's `md5(url)::uuid` gives it. */
export function callbackReceiver(url: string): string {
  const hex = createHash('md5').update(url, 'utf8').digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
