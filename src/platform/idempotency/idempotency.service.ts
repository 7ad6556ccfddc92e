import { createHash } from 'node:crypto';
import { DriverException, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { RequestContext } from '../context.js';
import type { Em } from '../db/orm.js';
import { AppError, type ErrorDetail } from '../errors/app-error.js';
import { errorEntry, type ErrorCode } from '../errors/catalogue.js';

export interface IdempotentRequest {
  /** The operation, e.g. `payment.capture`; a key is scoped to (client, MSN, operation, target). */
  operation: string;
  /**
   * What a modification acts on (a payment's reference, an object's id), so one key on two payments is two requests,
   * as the platform scopes keys (a plugin sends `Idempotency-Key: 1` on every cancel). Absent for a create: its key
   * is what names the object it makes.
   */
  target?: string;
  key: string;
  /** The request as the domain sees it (face-independent), so REST and the graph share one key space. */
  request: unknown;
  /** The refusal when the key was used for a different request; capture and refund have titles of their own (FACTS §1.5). */
  conflict?: ErrorCode;
}

/**
 * Thrown by an action that changed something durable before it refused: a modification that finds its payment
 * overdue expires it first, and that expiry must stand though the modification is refused. The action's changes
 * commit with the refusal, which becomes the key's recorded answer when it is `replayable`.
 */
export class CommittedRefusal extends Error {
  constructor(readonly refusal: AppError) {
    super(refusal.message);
  }
}

type Outcome<T> = { ok: true; value: T } | { ok: false; code: ErrorCode; detail: string; details: ErrorDetail[] };

/**
 * Runs `action` at most once per idempotency key: begin, the key's gate (`GATE`: lock and record lookup, one
 * statement), the action, the record, commit. The record is written in the action's own transaction, so a
 * crash or a server error leaves no record and a retry runs again. Failures that depend on the resource's state
 * (catalogue `replayable`) are recorded too, in that same transaction, so a retry gets the same answer.
 */
export async function runIdempotent<T>(ctx: RequestContext, request: IdempotentRequest, action: (em: Em) => Promise<T>): Promise<T> {
  const scope = scopeOf(ctx, request);
  const requestDigest = digestRequest(request.operation, request.request);
  const conflict = request.conflict ?? 'IDEMPOTENCY_CONFLICT';
  let actionError: AppError | undefined;
  let outcome: Outcome<T>;
  try {
    outcome = await ctx.em.transactional(async (em) => {
      // Two requests with one key must not run side by side; the second is told so rather than made to wait. The
      // lock and the record's lookup are one statement (see `GATE` for the race this leaves and how it is closed).
      const [gate] = await em.execute<GateRow[]>(`${GATE} select ${GATE_COLUMNS}`, gateParams(scope));
      if (!gate?.locked) throw inFlight();
      if (gate.request_digest !== null) return replay<T>(recordOf(gate), requestDigest, conflict);
      try {
        const value = await action(em);
        await insertRecord(em, scope, requestDigest, { ok: true, value }, ctx.clock.now());
        return { ok: true as const, value };
      } catch (error) {
        if (error instanceof CommittedRefusal) {
          await em.flush();
          const refusal = failureOutcome(error.refusal);
          if (errorEntry(error.refusal.code).replayable) await insertRecord(em, scope, requestDigest, refusal, ctx.clock.now());
          return refusal;
        }
        if (!(error instanceof AppError) || !errorEntry(error.code).replayable) throw error;
        if (error.cause instanceof DriverException) {
          // A failed statement aborted the transaction, so the refusal is recorded after the rollback. Only a
          // constraint refuses this way, and a constraint that refused once refuses a duplicate in between too.
          actionError = error;
          throw error;
        }
        // Recorded under the key's lock, in this transaction: a duplicate cannot run the action between the refusal
        // and its record and get another answer. Whatever the action changed in memory before refusing is dropped.
        em.clear();
        const refusal = failureOutcome(error);
        await insertRecord(em, scope, requestDigest, refusal, ctx.clock.now());
        return refusal;
      }
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) return answerOf(await replayRecorded<T>(ctx, scope, requestDigest, conflict));
    if (actionError) await recordFailure(ctx, scope, requestDigest, actionError);
    throw error;
  }
  if (outcome.ok) return outcome.value;
  throw new AppError(outcome.code, outcome.detail, outcome.details);
}

/**
 * An action written as one SQL statement, for `runIdempotentStatement`: the hot path of a create, where the key's
 * gate, the action's writes and the key's record go to the database together.
 */
export interface StatementAction<T, Row> {
  /**
   * The action's CTEs, `name as (...)` separated by commas. Its writes select from `go`, which has one row only when
   * the key is locked by this statement and has no record. The values are bound in `params`, in order.
   */
  ctes: string;
  params: unknown[];
  /**
   * A query of the action's CTEs giving at most one row with a jsonb `outcome` column (from `outcomeJson` or
   * `refusalJson`): recorded as the key's answer, in the same statement, when the action ran. No row, no record.
   */
  recorded: string;
  /** The final row's own columns, e.g. `(select id from created) as created`; they read CTEs and bind nothing. */
  columns: string;
  /** The action's answer from its columns, or its refusal thrown: what `recorded` recorded, read back. */
  answer(row: Row): T;
}

/** A success as the key records it, for a `StatementAction`'s `recorded` (bound as text, cast to jsonb). */
export function outcomeJson(value: unknown): string {
  return JSON.stringify({ ok: true, value });
}

/** A refusal as the key records it; only `replayable` ones may be recorded (catalogue). */
export function refusalJson(error: AppError): string {
  return JSON.stringify(failureOutcome(error));
}

/**
 * `runIdempotent` in one statement: the key's gate (`GATE`), the action's writes and the new record, one implicit
 * transaction, so no BEGIN or COMMIT either; the lock is held until the statement's end, its transaction's end. The
 * race the gate leaves ends as it does for `runIdempotent`: the record's unique constraint refuses the statement
 * (the action's writes roll back with it), and the winner's record is read again and replayed.
 *
 * `build` gives the statement, or throws a refusal found before any database read (a pure rule of the request): that
 * refusal is recorded nowhere, and is given only if the key has no record and no request holds it (one statement,
 * the gate alone), as the transaction's order (gate, then the action) would.
 */
export async function runIdempotentStatement<T, Row extends object>(
  ctx: RequestContext,
  request: IdempotentRequest,
  build: () => StatementAction<T, Row>,
): Promise<T> {
  const scope = scopeOf(ctx, request);
  const requestDigest = digestRequest(request.operation, request.request);
  const conflict = request.conflict ?? 'IDEMPOTENCY_CONFLICT';
  let action: StatementAction<T, Row> | undefined;
  let refusal: unknown;
  try {
    action = build();
  } catch (error) {
    refusal = error;
  }
  const statement = action
    ? `${GATE},
${action.ctes},
record as (
  insert into idempotency_record (client_id, msn, operation, target, idempotency_key, request_digest, outcome, created_at)
  select ?, ?, ?, ?, ?, ?, recorded.outcome, ? from (${action.recorded}) recorded
  returning id
)
select ${GATE_COLUMNS}, ${action.columns}, (select id from record) as record`
    : `${GATE} select ${GATE_COLUMNS}`;
  const params = action
    ? [...gateParams(scope), ...action.params, ...scopeParams(scope), requestDigest, ctx.clock.now()]
    : gateParams(scope);
  let row: (Row & GateRow) | undefined;
  try {
    // Inside a caller's transaction, a savepoint keeps the constraint's refusal from aborting the caller's work.
    [row] = ctx.em.isInTransaction()
      ? await ctx.em.transactional((em) => em.execute<NonNullable<typeof row>[]>(statement, params))
      : await ctx.em.execute<NonNullable<typeof row>[]>(statement, params);
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException) || !/idempotency_record_scope_unique/.test(error.message)) throw error;
    // The race described above: the first request committed its record after this statement's snapshot.
    return answerOf(await replayRecorded<T>(ctx, scope, requestDigest, conflict));
  }
  if (!row?.locked) throw inFlight();
  if (row.request_digest !== null)
    return answerOf(replay<T>({ request_digest: row.request_digest, outcome: row.outcome }, requestDigest, conflict));
  if (!action) throw refusal;
  return action.answer(row);
}

function answerOf<T>(outcome: Outcome<T>): T {
  if (outcome.ok) return outcome.value;
  throw new AppError(outcome.code, outcome.detail, outcome.details);
}

const RECORD_OF_SCOPE = 'client_id = ? and msn = ? and operation = ? and target = ? and idempotency_key = ?';

/**
 * The key's gate, one statement: the advisory lock on the key's scope, tried (a second request with the key is told
 * so rather than made to wait), and the key's record; `go` has a row when the lock is taken and there is no record.
 * The record is read in the statement's snapshot, taken before the lock is tried: a request with the key that
 * commits in between leaves the lock free and its record unseen. This request then runs its action, and its own
 * record fails on the record's unique constraint, which rolls its work back; the record is then read again and
 * replayed (`replayRecorded`), the answer a lookup after the lock would have given.
 */
const GATE = `with lock as materialized (select pg_try_advisory_xact_lock(hashtextextended(?, 0)) as locked),
existing as materialized (select request_digest, outcome from idempotency_record where ${RECORD_OF_SCOPE} limit 1),
go as materialized (select 1 from lock where locked and not exists (select 1 from existing))`;
const GATE_COLUMNS =
  '(select locked from lock) as locked, (select request_digest from existing) as request_digest, (select outcome from existing) as outcome';

interface GateRow {
  locked: boolean;
  request_digest: string | null;
  outcome: unknown;
}

function gateParams(scope: Scope): string[] {
  return [lockText(scope), ...scopeParams(scope)];
}

function recordOf(row: GateRow): StoredRecord {
  return { request_digest: row.request_digest!, outcome: row.outcome };
}

/** After the record's unique constraint refused this request's record: the answer recorded by the request that won. */
async function replayRecorded<T>(ctx: RequestContext, scope: Scope, requestDigest: string, conflict: ErrorCode): Promise<Outcome<T>> {
  const existing = await findRecord(ctx.em, scope);
  if (!existing) throw inFlight();
  return replay<T>(existing, requestDigest, conflict);
}

function lockText(scope: Scope): string {
  return `${scope.clientId}|${scope.msn}|${scope.operation}|${scope.target}|${scope.idempotencyKey}`;
}

function scopeParams(scope: Scope): string[] {
  return [scope.clientId, scope.msn, scope.operation, scope.target, scope.idempotencyKey];
}

function scopeOf(ctx: RequestContext, request: IdempotentRequest): Scope {
  // An operation of the principal as a whole (a partner's product order) names no sales unit: its keys are the client's.
  return {
    clientId: ctx.principal.clientId,
    msn: ctx.scope.actingFor ?? '',
    operation: request.operation,
    target: request.target ?? '',
    idempotencyKey: request.key,
  };
}

function inFlight(): AppError {
  return new AppError('IDEMPOTENCY_IN_FLIGHT', 'A request with this Idempotency-Key is still being processed', [
    { name: 'Idempotency-Key', reason: 'In use by a request in flight' },
  ]);
}

interface Scope {
  clientId: string;
  msn: string;
  operation: string;
  target: string;
  idempotencyKey: string;
}

interface StoredRecord {
  request_digest: string;
  outcome: unknown;
}

/*
 * The record table is this module's own, read and written with plain SQL in the caller's transaction: it is
 * never modified after insert, so the unit of work has nothing to track, and the benchmark profile showed the
 * ORM's query building and change-set pass for it costing more CPU than the statements themselves.
 */
async function findRecord(em: Em, scope: Scope): Promise<StoredRecord | undefined> {
  const [row] = await em.execute<StoredRecord[]>(
    `select request_digest, outcome from idempotency_record where ${RECORD_OF_SCOPE} limit 1`,
    scopeParams(scope),
  );
  return row;
}

async function insertRecord(em: Em, scope: Scope, requestDigest: string, outcome: Outcome<unknown>, now: Date): Promise<void> {
  await em.execute(
    `insert into idempotency_record (client_id, msn, operation, target, idempotency_key, request_digest, outcome, created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?)`,
    [scope.clientId, scope.msn, scope.operation, scope.target, scope.idempotencyKey, requestDigest, JSON.stringify(outcome), now],
  );
}

function replay<T>(record: StoredRecord, requestDigest: string, conflict: ErrorCode): Outcome<T> {
  if (record.request_digest !== requestDigest) {
    throw new AppError(conflict, 'This Idempotency-Key was used before with a different request; a retry must repeat the request exactly', [
      { name: 'Idempotency-Key', reason: 'Already used for a different request' },
    ]);
  }
  // PGlite parses jsonb; some drivers hand it over as text.
  return (typeof record.outcome === 'string' ? JSON.parse(record.outcome) : record.outcome) as Outcome<T>;
}

async function recordFailure(ctx: RequestContext, scope: Scope, requestDigest: string, error: AppError): Promise<void> {
  const outcome = failureOutcome(error);
  await ctx.em.execute(
    `insert into idempotency_record (client_id, msn, operation, target, idempotency_key, request_digest, outcome, created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?) on conflict do nothing`,
    [
      scope.clientId,
      scope.msn,
      scope.operation,
      scope.target,
      scope.idempotencyKey,
      requestDigest,
      JSON.stringify(outcome),
      ctx.clock.now(),
    ],
  );
}

function failureOutcome(error: AppError): Outcome<never> {
  return { ok: false, code: error.code, detail: error.message, details: error.details };
}

function digestRequest(operation: string, request: unknown): string {
  return createHash('sha256').update(operation).update('\n').update(canonicalJson(request)).digest('hex');
}

/** JSON with sorted keys, so the same request always has the same digest. */
export function canonicalJson(value: unknown): string {
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
