/**
 * Self and inclusive time by function of a V8 CPU profile (`BENCH_CPU_PROF=<dir>` writes one per Paygraph instance):
 * `node dist/bench/profile-summary.js <file.cpuprofile> [from-s] [to-s] [top]` prints the top functions of the samples
 * taken between from-s and to-s seconds after the profile started (default: all), as shares of those samples.
 * Idle and GC are listed like any function, so the shares add up to the window.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, fromArg, toArg, topArg] = process.argv.slice(2);
if (!file) throw new Error('usage: profile-summary <file.cpuprofile> [from-s] [to-s] [top]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
const from = Number(fromArg ?? 0) * 1e6;
const to = toArg === undefined ? Infinity : Number(toArg) * 1e6;
const top = Number(topArg ?? 30);

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
const nameOf = (node: ProfileNode) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? `${url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${lineNumber + 1}` : '';
  return `${functionName || '(anonymous)'} ${where}`.trim();
};

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
let elapsed = 0;
let counted = 0;
profile.samples.forEach((sample, i) => {
  elapsed += profile.timeDeltas[i] ?? 0;
  if (elapsed < from || elapsed > to) return;
  counted++;
  const leaf = byId.get(sample)!;
  self.set(nameOf(leaf), (self.get(nameOf(leaf)) ?? 0) + 1);
  // Inclusive: every function on the stack once, however often it recurses.
  const seen = new Set<string>();
  for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
    const name = nameOf(byId.get(id)!);
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + 1);
  }
});

const print = (title: string, counts: Map<string, number>) => {
  process.stdout.write(`\n${title} (${counted} samples)\n`);
  for (const [name, count] of [...counts].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stdout.write(`${((100 * count) / counted).toFixed(1).padStart(5)} %  ${name}\n`);
};
print('self', self);
print('inclusive', inclusive);
