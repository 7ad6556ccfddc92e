import type { PGlite, Transaction as PgliteTransaction } from '@electric-sql/pglite';
import { PgliteConnection } from '@mikro-orm/pglite';
import { PostgreSqlConnection } from '@mikro-orm/postgresql';
import type { Pool, PoolClient, QueryResult } from 'pg';
import type { Em } from './orm.js';

/**
 * One write (an `insert`, `update` or `delete`, values bound in `params` in order) that a path sends together with
 * others as the data-modifying CTEs of one statement, rather than one statement each or through a flush.
 */
export interface SqlWrite {
  sql: string;
  params: unknown[];
}

/**
 * The writes as one statement: each a CTE, then `final` (a statement of its own, e.g. the idempotency key's record;
 * absent, `select 1`). PostgreSQL runs every data-modifying CTE once, to completion, whether or not anything reads it.
 */
export function oneStatement(writes: readonly SqlWrite[], final?: SqlWrite): SqlWrite {
  const ctes = writes.map((write, i) => `write_${i} as (${write.sql})`);
  const last = final ?? { sql: 'select 1', params: [] };
  return {
    sql: ctes.length > 0 ? `with ${ctes.join(',\n')}\n${last.sql}` : last.sql,
    params: [...writes.flatMap((write) => write.params), ...last.params],
  };
}

/** What runs statements and gives their rows: a statement transaction, or an EntityManager (`sessionOf`). */
export interface SqlSession {
  query<Row extends object>(statement: SqlWrite): Promise<Row[]>;
}

/** The EntityManager's statements as a session, in its transaction if it is in one. */
export function sessionOf(em: Em): SqlSession {
  return { query: <Row extends object>({ sql, params }: SqlWrite) => em.execute<Row[]>(sql, [...params]) };
}

/** What the work between a statement transaction's first and last statements may do: more statements of its own. */
export type InTransaction = SqlSession;

/** How the work ends: its value, and the transaction's last statement, sent with its COMMIT (none: a COMMIT alone). */
export interface Ending<T> {
  value: T;
  last?: SqlWrite;
}

/**
 * A transaction of hand-written statements: a read, a decision in TypeScript, a write. On PostgreSQL its BEGIN
 * travels in the message of its first statement and its COMMIT in the message of its last, so it costs two round
 * trips instead of four (a third of a capture's time went to the other two: bench/README.md, issue 23). The order is
 * the signature's: the first statement is an argument, so nothing reaches the connection before it and its BEGIN;
 * the last is the work's answer, so it is sent with the COMMIT. The statements are the ORM's (its platform inlines
 * the values, its logger logs them, its driver names their errors), sent on a connection of the transaction's own;
 * the ORM holds no context of it. Rolled back when anything throws.
 */
export async function inStatementTransaction<Row extends object, T>(
  em: Em,
  first: SqlWrite,
  then: (rows: Row[], transaction: InTransaction) => Promise<Ending<T>>,
): Promise<T> {
  // Inside another transaction its statements would commit apart from it (PostgreSQL), or wait for it forever (PGlite).
  if (em.isInTransaction()) throw new Error('A statement transaction cannot run inside another transaction');
  const connection = em.getConnection();
  if (connection instanceof PostgreSqlConnection) return onPostgres(em, await connection.getNativeClient(), first, then);
  if (connection instanceof PgliteConnection) return onPglite(em, await connection.getNativeClient(), first, then);
  throw new Error('A statement transaction needs PostgreSQL or PGlite');
}

/** Sends one message and gives the rows of its one statement that is not BEGIN or COMMIT. */
type Send = (sql: string) => Promise<unknown[]>;

/** A statement as the ORM would send it: its values inlined by the ORM's platform, logged, its error converted. */
function runner(em: Em, send: Send): (statement: SqlWrite, around?: { begin?: boolean; commit?: boolean }) => Promise<unknown[]> {
  const platform = em.getPlatform();
  const logger = em.config.getLogger();
  return async ({ sql, params }, around = {}) => {
    const wrap = (statement: string) => `${around.begin ? 'begin;\n' : ''}${statement}${around.commit ? ';\ncommit' : ''}`;
    const message = wrap(platform.formatQuery(sql, [...params]));
    // Logged as the ORM logs its own: the statement with its placeholders, its values only when asked for.
    const query = logger.isEnabled('query-params') ? message : wrap(sql);
    const started = Date.now();
    try {
      const rows = await send(message);
      logger.logQuery({ query, params: [...params], took: Date.now() - started, level: 'info' });
      return rows;
    } catch (error) {
      logger.logQuery({ query, params: [...params], took: Date.now() - started, level: 'error' });
      throw em.getDriver().convertException(error as Error);
    }
  };
}

async function onPostgres<Row extends object, T>(
  em: Em,
  pool: Pool,
  first: SqlWrite,
  then: (rows: Row[], transaction: InTransaction) => Promise<Ending<T>>,
): Promise<T> {
  const client = await pool.connect();
  const run = runner(em, (sql) => statementRows(client, sql));
  let result: T;
  try {
    const rows = (await run(first, { begin: true })) as Row[];
    const { value, last } = await then(rows, { query: async <R extends object>(statement: SqlWrite) => (await run(statement)) as R[] });
    await run(last ?? { sql: 'commit', params: [] }, { commit: last !== undefined });
    result = value;
  } catch (error) {
    // A statement that failed left the transaction aborted (a COMMIT sent with it did not run): roll it back before
    // the connection goes back to the pool, or drop the connection if even that fails.
    try {
      await client.query('rollback');
    } catch (rollbackError) {
      client.release(rollbackError as Error);
      throw error;
    }
    client.release();
    throw error;
  }
  client.release();
  return result;
}

/**
 * PGlite is one connection inside this process: a transaction is its `transaction()`, which holds the connection
 * against every other statement and sends BEGIN and COMMIT itself, with no round trip to save.
 */
async function onPglite<Row extends object, T>(
  em: Em,
  pglite: PGlite,
  first: SqlWrite,
  then: (rows: Row[], transaction: InTransaction) => Promise<Ending<T>>,
): Promise<T> {
  return pglite.transaction(async (tx) => {
    const run = runner(em, (sql) => pgliteRows(tx, sql));
    const rows = (await run(first)) as Row[];
    const { value, last } = await then(rows, { query: async <R extends object>(statement: SqlWrite) => (await run(statement)) as R[] });
    if (last) await run(last);
    return value;
  });
}

async function statementRows(client: PoolClient, sql: string): Promise<unknown[]> {
  // No values are bound (the ORM inlined them), so pg sends the message as a simple query, which may hold several
  // statements (`begin; …`, `…; commit`) and answers each.
  const answer = (await client.query(sql)) as QueryResult | QueryResult[];
  const results = Array.isArray(answer) ? answer.filter((r) => r.command !== 'BEGIN' && r.command !== 'COMMIT') : [answer];
  if (results.length > 1) throw new Error(`A statement transaction sent ${results.length} statements in one message`);
  return results[0]?.rows ?? [];
}

async function pgliteRows(tx: PgliteTransaction, sql: string): Promise<unknown[]> {
  return (await tx.query(sql, [], { rowMode: 'object' })).rows as unknown[];
}
