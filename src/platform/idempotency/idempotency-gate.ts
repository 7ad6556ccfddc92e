import { createHash } from 'node:crypto';
import type { RequestContext } from '../context.js';
import type { Em } from '../db/orm.js';
import type { SqlWrite } from '../db/statement-transaction.js';
import { AppError, type ErrorDetail } from '../errors/app-error.js';
import type { ErrorCode } from '../errors/catalogue.js';
import { actingFor } from '../auth/tenancy-scope.js';

/*
 * The idempotency key's gate and record, for the one runner of writes (platform/db/run-operation.ts).
 */

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

export type Outcome<T> = { ok: true; value: T } | { ok: false; code: ErrorCode; detail: string; details: ErrorDetail[] };

export function answerOf<T>(outcome: Outcome<T>): T {
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

/** A key's gate as the runner sends it: CTEs defining `go`, its columns, and what it answers with. */
export interface KeyGate {
  ctes: string;
  columns: string;
  params: readonly unknown[];
  scope: Scope;
  digest: string;
  conflict: ErrorCode;
  inFlight(): AppError;
}

export function keyGate(ctx: RequestContext, request: IdempotentRequest): KeyGate {
  const scope = scopeOf(ctx, request);
  return {
    ctes: GATE,
    columns: GATE_COLUMNS,
    params: gateParams(scope),
    scope,
    digest: digestRequest(request.operation, request.request),
    conflict: request.conflict ?? 'IDEMPOTENCY_CONFLICT',
    inFlight,
  };
}

/** No key: the operation always runs (`go` has its row), and nothing is recorded. */
export const NO_GATE: KeyGate = {
  ctes: 'with go as (select 1)',
  columns: 'true as locked, null as request_digest, null as outcome',
  params: [],
  scope: { clientId: '', msn: '', operation: '', target: '', idempotencyKey: '' },
  digest: '',
  conflict: 'IDEMPOTENCY_CONFLICT',
  inFlight,
};

function gateParams(scope: Scope): string[] {
  return [lockText(scope), ...scopeParams(scope)];
}

/** After the record's unique constraint refused this request's record: the answer recorded by the request that won. */
export async function replayRecorded<T>(
  ctx: RequestContext,
  scope: Scope,
  requestDigest: string,
  conflict: ErrorCode,
): Promise<Outcome<T>> {
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
    msn: actingFor(ctx.scope) ?? '',
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

export interface Scope {
  clientId: string;
  msn: string;
  operation: string;
  target: string;
  idempotencyKey: string;
}

export interface StoredRecord {
  request_digest: string;
  outcome: unknown;
}

/*
 * The record table is this module's own, read and written with plain SQL in the operation's transaction: it is
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

/**
 * The key's record as a write, the last part of the operation's write: its outcome given, or the one row of a query
 * (`select`) of the statement's CTEs, when the database decided it (a guarded write); no row, no record.
 */
export function recordInsert(scope: Scope, requestDigest: string, outcome: Outcome<unknown> | { select: string }, now: Date): SqlWrite {
  const selected = 'select' in outcome;
  return {
    sql: `insert into idempotency_record (client_id, msn, operation, target, idempotency_key, request_digest, outcome, created_at)
     select ?, ?, ?, ?, ?, ?, ${selected ? 'recorded.outcome' : '?::jsonb'}, ?${selected ? ` from (${outcome.select}) recorded` : ''}`,
    params: [...scopeParams(scope), requestDigest, ...(selected ? [] : [JSON.stringify(outcome)]), now],
  };
}

export function replay<T>(record: StoredRecord, requestDigest: string, conflict: ErrorCode): Outcome<T> {
  if (record.request_digest !== requestDigest) throw keyConflict(conflict);
  // PGlite parses jsonb; some drivers hand it over as text.
  return (typeof record.outcome === 'string' ? JSON.parse(record.outcome) : record.outcome) as Outcome<T>;
}

/** The refusal of a key used before for a different request (409): by its record, or by its payment's event log. */
export function keyConflict(conflict: ErrorCode): AppError {
  return new AppError(conflict, 'This Idempotency-Key was used before with a different request; a retry must repeat the request exactly', [
    { name: 'Idempotency-Key', reason: 'Already used for a different request' },
  ]);
}

export function failureOutcome(error: AppError): Outcome<never> {
  return { ok: false, code: error.code, detail: error.message, details: error.details };
}

export function digestRequest(operation: string, request: unknown): string {
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

/** A success as the key records it, for a guarded write's `recorded` (bound as text, cast to jsonb). */
export function outcomeJson(value: unknown): string {
  return JSON.stringify({ ok: true, value });
}

/** A refusal as the key records it; only `replayable` ones may be recorded (catalogue). */
export function refusalJson(error: AppError): string {
  return JSON.stringify(failureOutcome(error));
}
