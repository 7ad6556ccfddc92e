import { UniqueConstraintViolationException, type EntityMetadata, type EntityName } from '@mikro-orm/core';
import type { Clock } from '../clock.js';
import type { RequestContext } from '../context.js';
import { AppError } from '../errors/app-error.js';
import { errorEntry } from '../errors/catalogue.js';
import { wakeAtCommit } from '../events/commit-wake.js';
import { eventWrites, projectionReads, type ProjectionReads } from '../events/event-statement.js';
import type { NewEvent } from '../events/new-event.js';
import {
  answerOf,
  failureOutcome,
  keyGate,
  NO_GATE,
  recordInsert,
  replay,
  replayRecorded,
  type IdempotentRequest,
  type KeyGate,
  type Outcome,
} from '../idempotency/idempotency-gate.js';
import { entityColumns, entityInsertSql, entityUpdateSql, untrackedEntity } from './entity-columns.js';
import type { Em } from './orm.js';
import { inStatementTransaction, oneStatement, sessionOf, type SqlSession, type SqlWrite } from './statement-transaction.js';

/**
 * What an operation reads, in the statement that takes its key's gate (one statement, sent with the BEGIN): CTEs
 * joined onto the statement's one row. A CTE that locks rows locks them only when the gate lets the operation run
 * (`where exists (select 1 from go)`), so a replay or a request in flight locks nothing.
 */
export interface OperationRead<E extends object> {
  /** `name as (...)`, each; values bound in `params`, in order. */
  ctes: readonly string[];
  params: readonly unknown[];
  /** The rows' own columns, e.g. `verb_payment.*`, from `joins` (`left join verb_payment on true`). */
  columns: string;
  joins: string;
  /** The entity the rows are (their columns are its columns); absent, the rows are given as they are. */
  entity?: EntityName<E>;
}

/** What the operation's decision writes, beside its key's record: one statement. */
export interface OperationWrites {
  /** Entities of the read changed in memory: each written as an update of the columns that changed. */
  changed?: readonly object[];
  /** New rows (`insertOf`): the entity and every stored column's value. */
  inserts?: readonly Insert[];
  /** Events, in their order, with their projectors' rows. */
  events?: readonly NewEvent[];
}

/** A new row of an entity, for a decision's `inserts`. */
export interface Insert {
  entity: EntityName<object>;
  row: object;
}

export function insertOf<E extends object>(entity: EntityName<E>, row: E): Insert {
  return { entity: entity as unknown as EntityName<object>, row };
}

/** The decision: a value, or a refusal that still writes (an overdue payment expired before a verb refused). */
export type Decision<T> = OperationWrites & ({ value: T } | { refusal: AppError });

export interface Read<E> {
  /** The read's entities, as the unit of work does not track them: the decision changes them, the runner writes that. */
  found: E[];
  /** The statement's first row: gate, entity and any columns of the read's own. */
  row: Record<string, unknown>;
}

export interface Operation<T, E extends object, M = undefined> {
  /** The idempotency key: the gate before the read, the record with the writes. Absent, neither. */
  key?: IdempotentRequest;
  /** Absent: the gate alone (an operation that reads by `readMore`). */
  read?: OperationRead<E>;
  /** The streams and names of the events the decision may record: their projectors' reads join the read. */
  mayRecord?: { streamType: string; names: readonly string[]; msn: string };
  /**
   * Writes the database guards itself, sent in the read's statement, the operation's only one (a create: the payment
   * inserted only when its unit takes payments and its reference is free): CTEs of the read's, and `recorded`, a query
   * of them giving at most one row with a jsonb `outcome` (`outcomeJson`, `refusalJson`), the key's answer; no row, no
   * record. `decide` then tells from the row what they did, and returns no writes of its own.
   */
  guardedWrite?: { ctes: readonly string[]; params: readonly unknown[]; recorded?: string };
  /** Reads after the first statement, ORM finds on `em`; they put the operation on the ORM's transaction. */
  readMore?: (read: Read<E>, em: Em) => Promise<M>;
  /**
   * Pure: no I/O. A refusal thrown (`AppError`) writes nothing and is recorded under the key when `replayable`; a
   * decision with a refusal writes its writes and records the refusal the same way.
   */
  decide(read: Read<E>, more: M): Decision<T>;
}

const NO_READ: OperationRead<object> = { ctes: [], params: [], columns: 'null as nothing', joins: '' };

export type OperationContext = Pick<RequestContext, 'em' | 'clock'> | { em: Em; clock: Clock };

/**
 * An operation's first statement: the key's gate, the read under it, and what the operation adds to them (its
 * projectors' reads, a guarded write and its record), each part's parameters in the order of its SQL.
 */
export function gateAndRead(
  gate: Pick<KeyGate, 'ctes' | 'columns' | 'params'>,
  read: Pick<OperationRead<object>, 'ctes' | 'columns' | 'joins' | 'params'>,
  more: { ctes: readonly string[]; columns: readonly string[]; params: readonly unknown[] } = { ctes: [], columns: [], params: [] },
): SqlWrite {
  return {
    sql: `${[gate.ctes, ...read.ctes, ...more.ctes].join(',\n')}
select ${[gate.columns, read.columns, ...more.columns].join(', ')} from (select 1) as gate_row ${read.joins}`,
    params: [...gate.params, ...read.params, ...more.params],
  };
}

/**
 * The one way a change reaches the database: the key's gate and the read under it (one statement, with the BEGIN),
 * the decision in TypeScript, then the changed and new rows, the events with their projectors' rows and the key's
 * record (one statement, with the COMMIT), and the bus's wake-up at the commit. Same key and request: the stored
 * answer; another request: 409; a request in flight: 409. The race the gate's snapshot leaves (a record committed
 * after it) ends on the record's unique constraint: this request's writes roll back and the winner's answer is
 * replayed.
 *
 * Where: a statement transaction of its own (two round trips on PostgreSQL: statement-transaction.ts); inside the
 * caller's transaction when there is one (a checkout's payment steps), keyed operations under a savepoint so the
 * key's race does not abort the caller's work; on the ORM's transaction when it reads more (`readMore`).
 */
export async function runOperation<T, E extends object, M = undefined>(ctx: OperationContext, operation: Operation<T, E, M>): Promise<T> {
  const { em } = ctx;
  const { key, mayRecord, guardedWrite } = operation;
  const read = operation.read ?? (NO_READ as OperationRead<E>);
  const gate = key ? keyGate(ctx as RequestContext, key) : NO_GATE;
  const projections = mayRecord ? projectionReads(mayRecord.streamType, mayRecord.names, mayRecord.msn) : undefined;
  const guardedRecord =
    key && guardedWrite?.recorded ? recordInsert(gate.scope, gate.digest, { select: guardedWrite.recorded }, ctx.clock.now()) : undefined;
  const first = gateAndRead(gate, read, {
    ctes: [...(projections?.ctes ?? []), ...(guardedWrite?.ctes ?? []), ...(guardedRecord ? [`record as (${guardedRecord.sql})`] : [])],
    columns: projections?.columns ?? [],
    params: [...(projections?.params ?? []), ...(guardedWrite?.params ?? []), ...(guardedRecord?.params ?? [])],
  });
  let wroteEvents = false;
  const then = async (rows: Record<string, unknown>[], session: SqlSession, on?: Em): Promise<{ value: Outcome<T>; last?: SqlWrite }> => {
    const [row = {}] = rows;
    if (!row.locked) throw gate.inFlight();
    if (row.request_digest !== null && row.request_digest !== undefined)
      return { value: replay<T>({ request_digest: row.request_digest as string, outcome: row.outcome }, gate.digest, gate.conflict) };
    const { found, before } = entitiesOf(em, read, rows);
    const taken: Read<E> = { found, row };
    const decision = decided(operation.decide, taken, operation.readMore ? await operation.readMore(taken, on!) : (undefined as M));
    const outcome: Outcome<T> = 'refusal' in decision ? failureOutcome(decision.refusal) : { ok: true, value: decision.value };
    if (guardedWrite) {
      wroteEvents = outcome.ok;
      return { value: outcome };
    }
    const writes = await writesOf(em, session, decision, before, projections, row);
    wroteEvents = (decision.events?.length ?? 0) > 0;
    const record =
      key && (outcome.ok || errorEntry(outcome.code).replayable)
        ? recordInsert(gate.scope, gate.digest, outcome, ctx.clock.now())
        : undefined;
    // A refusal that changed nothing and is not recorded writes nothing; everything else is one statement.
    return { value: outcome, last: writes.length > 0 || record ? oneStatement(writes, record) : undefined };
  };
  let outcome: Outcome<T>;
  try {
    if (guardedWrite) outcome = await inOneStatement(em, first, then, Boolean(key));
    else if (em.isInTransaction() || operation.readMore)
      outcome = await inOrmTransaction(em, first, then, Boolean(key) || !em.isInTransaction());
    else outcome = await inStatementTransaction(em, first, then);
  } catch (error) {
    if (!key || !(error instanceof UniqueConstraintViolationException) || !/idempotency_record_scope_unique/.test(error.message))
      throw error;
    // The race the gate leaves: the first request committed its record after this one's snapshot.
    return answerOf(await replayRecorded<T>(ctx as RequestContext, gate.scope, gate.digest, gate.conflict));
  }
  if (wroteEvents) wakeAtCommit(em);
  return answerOf(outcome);
}

/**
 * A guarded write: one statement, its own implicit transaction, so no BEGIN or COMMIT either; in the caller's
 * transaction, a keyed one under a savepoint, so the key's race does not abort the caller's work.
 */
async function inOneStatement<T>(
  em: Em,
  statement: SqlWrite,
  then: (rows: Record<string, unknown>[], session: SqlSession, on: Em) => Promise<{ value: T; last?: SqlWrite }>,
  keyed: boolean,
): Promise<T> {
  const rows =
    keyed && em.isInTransaction()
      ? await em.transactional((on) => sessionOf(on).query<Record<string, unknown>>(statement))
      : await sessionOf(em).query<Record<string, unknown>>(statement);
  return (await then(rows, sessionOf(em), em)).value;
}

/** On the ORM's connection: in the caller's transaction, or a transaction (a savepoint in the caller's) of its own. */
async function inOrmTransaction<T>(
  em: Em,
  first: SqlWrite,
  then: (rows: Record<string, unknown>[], session: SqlSession, on: Em) => Promise<{ value: T; last?: SqlWrite }>,
  own: boolean,
): Promise<T> {
  const run = async (on: Em) => {
    const session = sessionOf(on);
    const { value, last } = await then(await session.query(first), session, on);
    if (last) await session.query(last);
    return value;
  };
  return own ? em.transactional(run) : run(em);
}

function decided<T, E, M>(decide: (read: Read<E>, more: M) => Decision<T>, read: Read<E>, more: M): Decision<T> {
  try {
    return decide(read, more);
  } catch (error) {
    // A refusal that is not replayable is not recorded, and the transaction rolls back.
    if (!(error instanceof AppError) || !errorEntry(error.code).replayable) throw error;
    return { refusal: error };
  }
}

/** An entity's metadata and its values as read. */
interface AsRead {
  meta: EntityMetadata<object>;
  values: Record<string, unknown>;
}

/** The read's rows as entities, and each one's values as read, which its update is computed against. */
function entitiesOf<E extends object>(
  em: Em,
  read: OperationRead<E>,
  rows: Record<string, unknown>[],
): { found: E[]; before: Map<object, AsRead> } {
  const before = new Map<object, AsRead>();
  if (!read.entity) return { found: [], before };
  const meta = em.getMetadata().get(read.entity) as unknown as EntityMetadata<object>;
  const columns = entityColumns(meta);
  const primary = columns.find((c) => (meta.primaryKeys as string[]).includes(c.field))!.column;
  const found: E[] = [];
  for (const row of rows) {
    if (row[primary] === null || row[primary] === undefined) continue;
    const own: Record<string, unknown> = {};
    for (const { column } of columns) own[column] = row[column];
    const entity = untrackedEntity(em, meta, own) as E & Record<string, unknown>;
    before.set(entity, { meta, values: Object.fromEntries(columns.map(({ field }) => [field, entity[field]])) });
    found.push(entity);
  }
  return { found, before };
}

async function writesOf(
  em: Em,
  session: SqlSession,
  writes: OperationWrites,
  before: Map<object, AsRead>,
  projections: ProjectionReads | undefined,
  row: Record<string, unknown>,
): Promise<SqlWrite[]> {
  const out: SqlWrite[] = [];
  for (const entity of writes.changed ?? []) {
    const original = before.get(entity);
    if (!original) throw new Error('A decision changed an entity its read did not give');
    const update = entityUpdateSql(original.meta, original.values, entity);
    if (update) out.push(update);
  }
  for (const { entity, row: inserted } of writes.inserts ?? []) out.push(entityInsertSql(em.getMetadata().get(entity), inserted));
  const events = writes.events ?? [];
  if (events.length > 0) out.push(...(await eventWrites(em, session, events, projections?.of(row) ?? new Map())));
  return out;
}
