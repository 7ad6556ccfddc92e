import type { Em } from '../../src/platform/db/orm.js';

/**
 * `count` payments' CREATED events of sales unit `msn` (123456 unless named) written straight into the outbox in one transaction, in id
 * order, their references `prefix` + 1 … `prefix` + count: as if another instance had committed them all at once.
 */
export async function commitCreatedEvents(em: Em, prefix: string, count: number, msn = '123456'): Promise<void> {
  await em.execute(
    `insert into domain_event (stream_type, stream_id, msn, name, payload, occurred_at)
     select 'payment', md5(? || p), ?, 'epayments.payment.created.v1',
       jsonb_build_object('reference', ? || p, 'pspReference', 'outbox-events', 'name', 'CREATED',
         'amount', jsonb_build_object('currency', 'NOK', 'value', 1000), 'idempotencyKey', null, 'success', true),
       now()
     from generate_series(1, ?::int) p order by p`,
    [prefix, msn, prefix, count],
  );
}
