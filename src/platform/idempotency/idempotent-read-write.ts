import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { RequestContext } from '../context.js';
import type { Em } from '../db/orm.js';
import { oneStatement, type SqlWrite } from '../db/sql-write.js';
import { inStatementTransaction } from '../db/statement-transaction.js';
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
  recordInsert,
  recordOf,
  replay,
  replayRecorded,
  scopeOf,
  type GateRow,
  type IdempotentRequest,
  type Outcome,
} from './idempotency-gate.js';

/**
 * Thrown by an action that changed something durable before it refused: a modification that finds its payment
 * overdue expires it first, and that expiry must stand though the modification is refused. Its writes commit with
 * the refusal, which becomes the key's recorded answer when it is `replayable`.
 */
export class CommittedRefusal extends Error {
  constructor(
    readonly refusal: AppError,
    readonly writes: readonly SqlWrite[],
  ) {
    super(refusal.message);
  }
}

/** What an action reads with the key's gate, in the gate's statement. */
export interface GatedRead {
  /**
   * The read's CTEs, `name as (...)` separated by commas. One that locks rows must lock them only when the gate lets
   * the action run (`where exists (select 1 from go)`), so a replay or a request in flight locks nothing.
   */
  ctes: string;
  params: unknown[];
  /** The final row's own columns, e.g. `p.*`; they read the CTEs joined in `joins` and bind nothing. */
  columns: string;
  /** Joins onto the final row's one row (`left join … on true`), for `columns`. */
  joins: string;
}

/** A change the action decided on: its writes, and its answer, recorded with them. */
export interface ReadWriteChange<T> {
  writes: readonly SqlWrite[];
  value: T;
}

/**
 * `runIdempotent` in two statements whatever the action, one statement transaction (statement-transaction.ts): the
 * key's gate with the action's read (`read`, e.g. the row it changes, locked), sent with the BEGIN; the action's writes
 * with the key's record, as one statement of CTEs, sent with the COMMIT (a replay sends a COMMIT alone). `decide`
 * runs in between, in TypeScript, on the read row: it returns the change, or throws a refusal (`AppError`, recorded
 * when `replayable`, its writes none) or a `CommittedRefusal` (its writes committed with the refusal, as an overdue
 * payment's expiry). It may run more statements of its own on `em`, in the transaction (rare paths; the unit of work
 * is not flushed for it). The semantics are `runIdempotent`'s: a stored answer is replayed, a different request with
 * the key refused, a request in flight told so; and the race the gate's snapshot leaves (a record committed after it) ends the same way:
 * the record's unique constraint rolls the writes back and the winner's answer is replayed.
 *
 * The ORM's flush and the separate statements of its unit of work (a locked read, then the update, the event, a
 * projector's row and the record one statement each) were most of a capture's CPU: each statement costs the instance
 * its round trip (bench/README.md, issue 23 part 4), and so did BEGIN and COMMIT as statements of their own.
 */
export async function runIdempotentReadWrite<T, Row extends object>(
  ctx: RequestContext,
  request: IdempotentRequest,
  read: GatedRead,
  decide: (em: Em, row: Row) => Promise<ReadWriteChange<T>>,
): Promise<T> {
  const scope = scopeOf(ctx, request);
  const requestDigest = digestRequest(request.operation, request.request);
  const conflict = request.conflict ?? 'IDEMPOTENCY_CONFLICT';
  let outcome: Outcome<T>;
  try {
    outcome = await inStatementTransaction(ctx.em, async (transaction) => {
      const [row] = await transaction.first<Row & GateRow>(
        `${GATE},\n${read.ctes}\nselect ${GATE_COLUMNS}, ${read.columns} from (select 1) as gate_row ${read.joins}`,
        [...gateParams(scope), ...read.params],
      );
      if (!row?.locked) throw inFlight();
      if (row.request_digest !== null) return replay<T>(recordOf(row), requestDigest, conflict);
      const { writes, outcome } = await decided(transaction.em, row, decide);
      const record =
        outcome.ok || errorEntry(outcome.code).replayable ? recordInsert(scope, requestDigest, outcome, ctx.clock.now()) : undefined;
      // A refusal that changed nothing and is not recorded writes nothing; everything else is one statement.
      if (writes.length > 0 || record) {
        const statement = oneStatement(writes, record);
        await transaction.commitWith(statement.sql, statement.params);
      }
      return outcome;
    });
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException) || !/idempotency_record_scope_unique/.test(error.message)) throw error;
    // The race described above: the first request committed its record after the gate's snapshot.
    return answerOf(await replayRecorded<T>(ctx, scope, requestDigest, conflict));
  }
  return answerOf(outcome);
}

/** The action's change or refusal, with what it writes either way. */
async function decided<T, Row>(
  em: Em,
  row: Row,
  decide: (em: Em, row: Row) => Promise<ReadWriteChange<T>>,
): Promise<{ writes: readonly SqlWrite[]; outcome: Outcome<T> }> {
  try {
    const { writes, value } = await decide(em, row);
    return { writes, outcome: { ok: true, value } };
  } catch (error) {
    if (error instanceof CommittedRefusal) return { writes: error.writes, outcome: failureOutcome(error.refusal) };
    // A refusal that is not replayable is not recorded, and rolls back whatever the action wrote by itself.
    if (!(error instanceof AppError) || !errorEntry(error.code).replayable) throw error;
    return { writes: [], outcome: failureOutcome(error) };
  }
}
