import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** The first outcome of a request under one idempotency key, scoped to (client, MSN, operation, target). */
export const IdempotencyRecord = defineEntity({
  name: 'IdempotencyRecord',
  tableName: 'idempotency_record',
  properties: {
    id: p.bigint('number').primary().autoincrement(),
    clientId: p.string(),
    msn: p.string(),
    operation: p.string(),
    /** The payment or object a modification acts on; `''` for a create. */
    target: p.string(),
    idempotencyKey: p.string(),
    requestDigest: p.string(),
    outcome: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
  },
});
export type IdempotencyRecord = InferEntity<typeof IdempotencyRecord>;
