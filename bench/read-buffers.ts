import type { Em } from '../src/platform/db/orm.js';
import { READ_PAGE } from '../src/platform/events/domain-event-bus.js';
import { SEQUENCING_SQL } from '../src/platform/events/event-sequencer.js';
import { streamSql } from '../src/platform/events/stream-order.js';
import { readFirstPaymentEvents, readPaymentEventsAfter, readPayments } from '../src/payments/payment.read-model.js';

/**
 * The buffers (shared hit + read, EXPLAIN (ANALYZE, BUFFERS)) the service's own reads cost, as the outbox-read-cost and
 * webhook-claim-cost tests count them: a figure no load on the machine moves, so the soak's reads at millions of
 * payments compare with the same reads on a small database (test/payments/payment-reads-flat.test.ts, bench/soak.ts).
 * Each statement is the read model's own, captured as it would run, then explained.
 */
export interface ReadBuffers {
  /** One payment's log, its first page of 50 events (`Payment.events`). */
  paymentLog: number;
  /** A page of 50 payments, newest first (`payments(first: 50)`), and the first events of each (one statement). */
  page: number;
  pageEvents: number;
  /** A search whose matches are few (a reference prefix naming one payment). */
  searchByReferencePrefix: number;
  /** A search whose matches are many (a state and an amount). */
  searchByStateAndAmount: number;
  /**
   * The bus's read when nothing is fresh: the sequencing (run for real under EXPLAIN ANALYZE: it positions what
   * is unpositioned, as the bus would), then the stream after the highest position.
   */
  outboxRead: number;
}

/** The statement a read would run: the read is given an entity manager that records it and returns no rows. */
async function statementOf(read: (em: Em) => Promise<unknown>): Promise<{ sql: string; params: unknown[] }> {
  let statement: { sql: string; params: unknown[] } | undefined;
  const recorder = {
    execute: (sql: string, params: unknown[] = []) => {
      statement = { sql, params };
      return Promise.resolve([]);
    },
  };
  await read(recorder as unknown as Em);
  if (!statement) throw new Error('the read ran no statement');
  return statement;
}

async function buffers(em: Em, statement: { sql: string; params: unknown[] }): Promise<number> {
  const [row] = await em.execute<{ 'QUERY PLAN': [{ Plan: Record<string, number> }] | string }[]>(
    `explain (analyze, buffers, format json) ${statement.sql}`,
    statement.params,
  );
  const plan = row!['QUERY PLAN'];
  const top = (typeof plan === 'string' ? (JSON.parse(plan) as [{ Plan: Record<string, number> }]) : plan)[0].Plan;
  return top['Shared Hit Blocks']! + top['Shared Read Blocks']!;
}

/** The buffers of each read for the sales unit `msn`, of the payment `paymentId` and the reference `reference`. */
export async function readBuffers(em: Em, msn: string, paymentId: string, reference: string, now: Date): Promise<ReadBuffers> {
  const page = await statementOf((r) => readPayments(r, { msn, now, limit: 51 }));
  const pageIds = (
    await em.execute<{ id: string }[]>(`select id from payment where msn = ? order by created_at desc, id desc limit 50`, [msn])
  ).map((p) => p.id);
  const [{ position } = { position: '0' }] = await em.execute<{ position: string | null }[]>(
    `select coalesce(max(position), 0)::text as position from event_position`,
  );
  const stream = streamSql({}, { afterPosition: Number(position), limit: READ_PAGE });
  return {
    paymentLog: await buffers(em, await statementOf((r) => readPaymentEventsAfter(r, paymentId, 0, 51))),
    page: await buffers(em, page),
    pageEvents: await buffers(em, await statementOf((r) => readFirstPaymentEvents(r, pageIds, 51))),
    searchByReferencePrefix: await buffers(
      em,
      await statementOf((r) => readPayments(r, { msn, now, limit: 51, referencePrefix: reference })),
    ),
    searchByStateAndAmount: await buffers(
      em,
      await statementOf((r) => readPayments(r, { msn, now, limit: 51, states: ['AUTHORIZED'], amountFrom: 1000 })),
    ),
    outboxRead: (await buffers(em, { sql: SEQUENCING_SQL, params: [] })) + (await buffers(em, stream)),
  };
}
