import type { Config } from '../../config.js';
import type { Em } from '../db/orm.js';
import type { TimePartitions } from './time-partitions.js';

/**
 * One kind of data with a retention (README, Data lifecycle), declared by the module that owns its table: the time
 * before which it goes, and how a prune counts and removes it. `domain_event` (the payments' log and the stream) has
 * none: it is kept.
 */
export interface RetentionRule {
  /** As the README's table, the command line and the operator graph name it, e.g. `webhook-deliveries`. */
  kind: string;
  /** How it is removed: whole day partitions dropped, or bounded batched deletes (the interim, batched-delete.ts). */
  method: 'partitions' | 'batches';
  /** Rows older than this go. */
  cutoff(config: Config, now: Date): Date;
  /** The rows a prune at `cutoff` would remove, read now (the dry run). */
  count(em: Em, cutoff: Date): Promise<number>;
  /** Removes them, each step committed on its own; returns how many went. `em` is in no transaction. */
  prune(em: Em, cutoff: Date, config: Config): Promise<number>;
  /** The table partitioned by day, for a rule that drops partitions (the gauge of days ahead reads it). */
  partitions?: TimePartitions;
  /** Work to do ahead of time whatever was pruned (creating the days ahead of a partitioned table). */
  prepare?(em: Em, config: Config, now: Date): Promise<void>;
}

export interface PruneResult {
  kind: string;
  method: RetentionRule['method'];
  cutoff: Date;
  /** Rows removed, or with `dryRun` the rows a prune would remove. */
  rows: number;
  dryRun: boolean;
}

/**
 * Runs every rule's prune (or, `dryRun`, counts what it would remove), one kind after the other, and records each
 * kind that removed rows in `prune_run`: the operator graph lists it, and a payment's page says deliveries before its
 * cutoff were pruned. Safe on several instances at once: each step is a partition detach another instance's equal
 * step makes a no-op, or a batch of rows locked with SKIP LOCKED; each instance records only what it removed.
 */
export async function pruneData(
  em: Em,
  rules: readonly RetentionRule[],
  config: Config,
  now: Date,
  options: { dryRun: boolean; kinds?: readonly string[] },
): Promise<PruneResult[]> {
  const results: PruneResult[] = [];
  for (const rule of rules) {
    if (options.kinds && !options.kinds.includes(rule.kind)) continue;
    const cutoff = rule.cutoff(config, now);
    if (options.dryRun) {
      results.push({ kind: rule.kind, method: rule.method, cutoff, rows: await rule.count(em, cutoff), dryRun: true });
      continue;
    }
    await rule.prepare?.(em, config, now);
    const rows = await rule.prune(em, cutoff, config);
    if (rows > 0)
      await em.execute('insert into prune_run (kind, cutoff, removed, ran_at) values (?, ?, ?, ?)', [rule.kind, cutoff, rows, now]);
    results.push({ kind: rule.kind, method: rule.method, cutoff, rows, dryRun: false });
  }
  return results;
}

/** A prune that removed rows, as `prune_run` keeps it. */
export interface PruneRun {
  kind: string;
  cutoff: Date;
  removed: number;
  ranAt: Date;
}

/** The latest prunes that removed rows, newest first; of one kind when given. */
export async function recentPruneRuns(em: Em, limit: number, kind?: string): Promise<PruneRun[]> {
  const rows = await em.execute<{ kind: string; cutoff: Date | string; removed: string | number; ran_at: Date | string }[]>(
    `select kind, cutoff, removed, ran_at from prune_run ${kind ? 'where kind = ?' : ''} order by ran_at desc, id desc limit ?`,
    [...(kind ? [kind] : []), limit],
  );
  return rows.map((r) => ({ kind: r.kind, cutoff: new Date(r.cutoff), removed: Number(r.removed), ranAt: new Date(r.ran_at) }));
}

/** The newest cutoff of a kind's prunes: its rows before it were removed (null: never pruned). */
export async function prunedBefore(em: Em, kind: string): Promise<Date | null> {
  const [row] = await em.execute<{ cutoff: Date | string | null }[]>('select max(cutoff) as cutoff from prune_run where kind = ?', [kind]);
  return row?.cutoff ? new Date(row.cutoff) : null;
}
