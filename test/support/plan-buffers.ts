import type { Em } from '../../src/platform/db/orm.js';

/** A node of EXPLAIN (analyze, buffers, format json)'s plan: what the cost tests read. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows': number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

/** A plan as lines of node, relation and buffers (children's included), for a failure's message. */
export function planLines(node: PlanNode, depth = 0): string[] {
  const where = node['Index Name'] ?? node['Relation Name'] ?? '';
  const line = `${'  '.repeat(depth)}${node['Node Type']} ${where} rows=${node['Actual Rows']} buffers=${node['Shared Hit Blocks'] + node['Shared Read Blocks']}`;
  return [line, ...(node.Plans ?? []).flatMap((child) => planLines(child, depth + 1))];
}

/** One statement's reading: the buffers its plan read (hit or not), and the plan's lines. */
export interface Reading {
  buffers: number;
  plan: string[];
}

/** Runs `sql` under EXPLAIN (analyze, buffers) on `em`: the buffers it read, counted whatever the machine's load. */
export async function explainBuffers(em: Em, sql: string, params: unknown[] = []): Promise<Reading> {
  const [row] = await em.execute<{ 'QUERY PLAN': [{ Plan: PlanNode }] }[]>(`explain (analyze, buffers, format json) ${sql}`, params);
  const plan = row!['QUERY PLAN'][0].Plan;
  return { buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'], plan: planLines(plan) };
}

/**
 * An Em whose `execute` runs each statement under EXPLAIN (analyze, buffers) on `em` instead, recording the reading
 * and answering no rows: hands the statements a service builds to the cost tests, as the service runs them.
 */
export function explainingEm(em: Em): { em: Em; readings: Reading[] } {
  const readings: Reading[] = [];
  const explaining = {
    execute: async (sql: string, params: unknown[] = []) => {
      readings.push(await explainBuffers(em, sql, params));
      return [];
    },
  } as unknown as Em;
  return { em: explaining, readings };
}

/** 'flat' when `large` read at most `margin` buffers more than `small`; otherwise both plans, to say where they went. */
export function flatVerdict(what: string, small: Reading, large: Reading, margin: number): string {
  return large.buffers <= small.buffers + margin
    ? 'flat'
    : [`${what}: ${large.buffers} buffers over many rows, ${small.buffers} over few`, ...large.plan, 'over few:', ...small.plan].join('\n');
}

/** The fewest buffers of three readings: the first over freshly written pages, or one racing the app's bus, reads a few more. */
export async function leastOfThree(read: () => Promise<Reading>): Promise<Reading> {
  let least: Reading = { buffers: Number.POSITIVE_INFINITY, plan: [] };
  for (let i = 0; i < 3; i++) {
    const reading = await read();
    if (reading.buffers < least.buffers) least = reading;
  }
  return least;
}
