import { DriverException, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { RequestContext } from '../context.js';
import type { Em } from '../db/orm.js';
import { AppError } from '../errors/app-error.js';
import { errorEntry } from '../errors/catalogue.js';
import {
  GATE,
  GATE_COLUMNS,
  answerOf,
  digestRequest,
  failureOutcome,
  gateParams,
  inFlight,
  insertRecord,
  recordOf,
  replay,
  replayRecorded,
  scopeOf,
  scopeParams,
  type GateRow,
  type IdempotentRequest,
  type Outcome,
  type Scope,
} from './idempotency-gate.js';

export { canonicalJson, type IdempotentRequest } from './idempotency-gate.js';

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
