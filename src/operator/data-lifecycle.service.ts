import type { Config } from '../config.js';
import type { Em } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { pruneData, recentPruneRuns, type PruneResult, type PruneRun, type RetentionRule } from '../platform/lifecycle/retention.js';

/**
 * The operator's view of the prune, for the command line (`prune`, `prune --dry-run`) and the operator graph
 * (`pruneDryRun`, `pruneData`, `pruneRuns`): the same rules the prune job runs (README, Data lifecycle).
 */
export interface PruneCall {
  em: Em;
  config: Config;
  rules: readonly RetentionRule[];
  now: Date;
}

export async function pruneNow(call: PruneCall, options: { dryRun: boolean; kinds?: readonly string[] }): Promise<PruneResult[]> {
  const known = new Set(call.rules.map((r) => r.kind));
  const unknown = (options.kinds ?? []).filter((k) => !known.has(k));
  if (unknown.length > 0)
    throw new AppError('OPERATOR_INVALID', `No kind of data named ${unknown.join(', ')}; kinds: ${[...known].join(', ')}`, [
      { name: 'kinds', reason: 'Unknown kind' },
    ]);
  return pruneData(call.em, call.rules, call.config, call.now, options);
}

const MAX_RUNS = 100;

export function pruneHistory(em: Em, first: number): Promise<PruneRun[]> {
  if (!Number.isInteger(first) || first < 1 || first > MAX_RUNS)
    throw new AppError('OPERATOR_INVALID', `first must be 1 to ${MAX_RUNS}`, [{ name: 'first', reason: `Must be 1 to ${MAX_RUNS}` }]);
  return recentPruneRuns(em, first);
}
