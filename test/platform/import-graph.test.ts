import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Relative imports of a file, type-only ones included: a circle of types is still two modules that know each other. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'";]*?from\s*'(\.{1,2}\/[^']+)'|(?:^|\n)\s*import\s*'(\.{1,2}\/[^']+)'/g),
  ];
  return specifiers.map((m) => resolve(dirname(file), (m[1] ?? m[2])!.replace(/\.js$/, '.ts')));
}

function findCycles(graph: Map<string, string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'visiting');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'visiting') cycles.push(stack.slice(stack.indexOf(next)).concat(next));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return cycles;
}

const graph = new Map([...sourceFiles(join(root, 'src')), ...sourceFiles(join(root, 'resolvers'))].map((f) => [f, importsOf(f)]));
const name = (file: string) => relative(root, file);

describe('the import graph', () => {
  test('has no circle', () => {
    expect(findCycles(graph).map((cycle) => cycle.map(name).join(' -> '))).toEqual([]);
  });

  test('faces depend on services, never the reverse: nothing under src/ but module manifests imports resolvers/ or a route file', () => {
    const manifest = (file: string) => file.endsWith('.module.ts') || name(file) === 'src/modules.ts' || name(file) === 'src/app.ts';
    const face = (file: string) => name(file).startsWith('resolvers/') || file.endsWith('.routes.ts');
    const wrong = [...graph]
      .filter(([file]) => name(file).startsWith('src/') && !manifest(file) && !face(file))
      .flatMap(([file, imports]) => imports.filter(face).map((target) => `${name(file)} -> ${name(target)}`));
    expect(wrong).toEqual([]);
  });

  test('the platform names no domain', () => {
    const domains = ['payments', 'wallet', 'webhooks', 'merchants', 'test-environment'].map((d) => `src/${d}/`);
    const wrong = [...graph]
      .filter(([file]) => name(file).startsWith('src/platform/') && !file.endsWith('.module.ts'))
      .flatMap(([file, imports]) =>
        imports.filter((t) => domains.some((d) => name(t).startsWith(d))).map((t) => `${name(file)} -> ${name(t)}`),
      );
    expect(wrong).toEqual([]);
  });
});
