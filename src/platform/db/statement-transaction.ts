import type { PGlite, Transaction as PgliteTransaction } from '@electric-sql/pglite';
import { EventType } from '@mikro-orm/core';
import { PgliteConnection } from '@mikro-orm/pglite';
import { PostgreSqlConnection } from '@mikro-orm/postgresql';
import type { Pool, PoolClient, QueryResult } from 'pg';
import type { Em } from './orm.js';

/**
 * A transaction of hand-written statements: a read, a decision in TypeScript, a write. On PostgreSQL its BEGIN
 * travels in the message of its first statement and its COMMIT in the message of its last, so it costs two round
 * trips instead of four. Each round trip costs the instance a socket write that wakes the database's backend and,
 * on a busy machine, the instance's turn on the core: a third of a capture's time went there (bench/README.md, issue
 * 23, capture in two messages).
 */
export interface StatementTransaction {
  /**
   * An entity manager whose statements run in this transaction: `first` and `commitWith` go through it (so the ORM
   * inlines their values, logs them and converts their errors), and so may a rare path's statements of its own
   * (a sales unit's first ledger). Its unit of work is never flushed.
   */
  readonly em: Em;
  /** The transaction's first statement, sent with its BEGIN: its rows. */
  first<Row extends object>(sql: string, params: readonly unknown[]): Promise<Row[]>;
  /** The transaction's last statement, sent with its COMMIT. Without one, the transaction commits on its own. */
  commitWith(sql: string, params: readonly unknown[]): Promise<void>;
}

/**
 * Runs `work` in a statement transaction on a connection of its own: committed when `work` returns (by its
 * `commitWith`, else by a COMMIT of its own), rolled back when it throws. The ORM's commit hooks run after the commit,
 * as for the ORM's own transactions (the commit wake-up of the event bus).
 */
export async function inStatementTransaction<T>(em: Em, work: (transaction: StatementTransaction) => Promise<T>): Promise<T> {
  // Inside another transaction its statements would commit apart from it (PostgreSQL), or wait for it forever (PGlite).
  if (em.isInTransaction()) throw new Error('A statement transaction cannot run inside another transaction');
  const connection = em.getConnection();
  if (connection instanceof PostgreSqlConnection) return onPostgres(em, await connection.getNativeClient(), work);
  if (connection instanceof PgliteConnection) return onPglite(em, await connection.getNativeClient(), work);
  throw new Error('A statement transaction needs PostgreSQL or PGlite');
}

/** What the ORM asks of a transaction context to run a statement on it (kysely's `executeQuery`). */
interface StatementSession {
  executeQuery(query: { sql: string; parameters: readonly unknown[] }): Promise<{ rows: unknown[]; numAffectedRows?: bigint }>;
}

async function onPostgres<T>(em: Em, pool: Pool, work: (transaction: StatementTransaction) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const session = postgresSession(client);
  const fork = forkOn(em, session);
  // Set by the statements: whether a transaction is open on the connection, to commit or roll back.
  const progress: { state: 'idle' | 'open' | 'committed' } = { state: 'idle' };
  const transaction: StatementTransaction = {
    em: fork,
    first: (sql, params) => {
      progress.state = 'open';
      return fork.execute(`begin;\n${sql}`, [...params]);
    },
    commitWith: async (sql, params) => {
      await fork.execute(`${sql};\ncommit`, [...params]);
      progress.state = 'committed';
    },
  };
  let result: T;
  try {
    result = await work(transaction);
    if (progress.state === 'open') await fork.execute('commit');
  } catch (error) {
    // A statement that failed left the transaction aborted (a COMMIT sent with it did not run): roll it back before
    // the connection goes back to the pool, or drop the connection if even that fails.
    if (progress.state === 'open') {
      try {
        await fork.execute('rollback');
      } catch (rollbackError) {
        client.release(rollbackError as Error);
        throw error;
      }
    }
    client.release();
    throw error;
  }
  client.release();
  await committed(fork);
  return result;
}

/**
 * PGlite is one connection inside this process: a transaction is its `transaction()`, which holds the connection
 * against every other statement and sends BEGIN and COMMIT itself, with no round trip to save.
 */
async function onPglite<T>(em: Em, pglite: PGlite, work: (transaction: StatementTransaction) => Promise<T>): Promise<T> {
  let fork: Em | undefined;
  const result = await pglite.transaction(async (tx) => {
    const onTransaction = forkOn(em, pgliteSession(tx));
    fork = onTransaction;
    return work({
      em: onTransaction,
      first: (sql, params) => onTransaction.execute(sql, [...params]),
      commitWith: async (sql, params) => {
        await onTransaction.execute(sql, [...params]);
      },
    });
  });
  await committed(fork!);
  return result;
}

/** A fork of `em` whose statements run on `session`. */
function forkOn(em: Em, session: StatementSession): Em {
  const fork = em.fork();
  fork.setTransactionContext(session as unknown as Parameters<Em['setTransactionContext']>[0]);
  return fork;
}

/** Tells the ORM's subscribers that the transaction committed, as its own commit does. */
async function committed(fork: Em): Promise<void> {
  const transaction = fork.getTransactionContext();
  await fork.getEventManager().dispatchEvent(EventType.afterTransactionCommit, { em: fork, uow: fork.getUnitOfWork(false), transaction });
}

function postgresSession(client: PoolClient): StatementSession {
  return {
    async executeQuery({ sql, parameters }) {
      // A message of several statements (`begin; …`, `…; commit`) answers each; the one that is not BEGIN or COMMIT
      // is the statement's.
      const answer = (await client.query(sql, [...parameters])) as QueryResult | QueryResult[];
      const results = Array.isArray(answer) ? answer.filter((r) => r.command !== 'BEGIN' && r.command !== 'COMMIT') : [answer];
      if (results.length !== 1) throw new Error(`A statement transaction sent ${results.length} statements in one message`);
      const [result] = results as [QueryResult];
      return { rows: result.rows, numAffectedRows: affectedRows(result.command, result.rowCount) };
    },
  };
}

function pgliteSession(tx: PgliteTransaction): StatementSession {
  return {
    async executeQuery({ sql, parameters }) {
      const result = await tx.query(sql, [...parameters], { rowMode: 'object' });
      return { rows: result.rows, numAffectedRows: result.affectedRows === undefined ? undefined : BigInt(result.affectedRows) };
    },
  };
}

function affectedRows(command: string, rowCount: number | null): bigint | undefined {
  return ['INSERT', 'UPDATE', 'DELETE', 'MERGE'].includes(command) && rowCount !== null ? BigInt(rowCount) : undefined;
}
