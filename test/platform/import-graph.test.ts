/** @database-free (code and files only, no database: CI runs this file in one pass, jest.config.js) */
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

/**
 * Relative imports of a file, type-only ones included (a circle of types is still two modules that know each other),
 * and dynamic `import(…)` calls, which load a module as surely as a static import does, only later.
 */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(
      /(?:^|\n)\s*(?:import|export)[^'";]*?from\s*'(\.{1,2}\/[^']+)'|(?:^|\n)\s*import\s*'(\.{1,2}\/[^']+)'|\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/g,
    ),
  ];
  return specifiers.map((m) => resolve(dirname(file), (m[1] ?? m[2] ?? m[3])!.replace(/\.js$/, '.ts')));
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

/**
 * The floors of the service, bottom up. A file imports only its own floor and the floors below it:
 * - the base: the platform, and the configuration and logger it reads;
 * - the domains' services, entities and rules, one folder per floor in this order, each naming only the folders
 *   below it (the order is the one their imports already had: the page kit stands below every domain with pages;
 *   the wallet simulates the user who approves payments, so it stands above payments; checkout, PSP and QR approve
 *   as the wallet's test users, so they stand above the wallet);
 * - the faces: REST routes, pages and resolvers, which call any domain's services and which no service calls;
 * - the composition: the module manifests (`src/modules/`), their list, the app built from them, and the two entry
 *   points that start it: the service (`main.ts`) and the operator's command line (`cli.ts`).
 */
const base = ['src/platform/', 'src/config.ts', 'src/log.ts', 'src/startup-failure.ts'];
const domains = [
  'merchants',
  'business-registry',
  'user-profiles',
  'orders',
  'pages',
  'payments',
  'webhooks',
  'ledgers',
  'wallet',
  'checkout',
  'psp',
  'psp-signup',
  'qr',
  'management',
  'operator',
].map((d) => `src/${d}/`);
const composition = ['src/modules/', 'src/modules.ts', 'src/app.ts', 'src/main.ts', 'src/cli.ts'];

const isFace = (file: string) => name(file).startsWith('resolvers/') || /\.(routes|page|pages)\.ts$/.test(file);
const within = (file: string, places: readonly string[]) => places.some((p) => name(file) === p || name(file).startsWith(p));

/** A file's floor: 0 the base, 1.. the domains in order, then the faces, then the composition; undefined if unplaced. */
function floorOf(file: string): number | undefined {
  if (within(file, composition)) return domains.length + 2;
  if (isFace(file)) return domains.length + 1;
  if (within(file, base)) return 0;
  const domain = domains.findIndex((d) => name(file).startsWith(d));
  return domain >= 0 ? domain + 1 : undefined;
}

describe('the import graph', () => {
  test('has no circle', () => {
    expect(findCycles(graph).map((cycle) => cycle.map(name).join(' -> '))).toEqual([]);
  });

  test('every file of src/ and resolvers/ stands on a floor: a new domain folder is placed in the list above', () => {
    expect([...graph.keys()].filter((file) => floorOf(file) === undefined).map(name)).toEqual([]);
  });

  test('faces depend on services, never the reverse: only the composition imports resolvers/, a route or a page', () => {
    const wrong = [...graph]
      .filter(([file]) => !isFace(file) && !within(file, composition))
      .flatMap(([file, imports]) => imports.filter(isFace).map((target) => `${name(file)} -> ${name(target)}`));
    expect(wrong).toEqual([]);
  });

  test('nothing imports the composition but the composition', () => {
    const wrong = [...graph]
      .filter(([file]) => !within(file, composition))
      .flatMap(([file, imports]) => imports.filter((t) => within(t, composition)).map((t) => `${name(file)} -> ${name(t)}`));
    expect(wrong).toEqual([]);
  });

  test('the platform names no domain, and each domain names only the folders below it: every import points down', () => {
    const wrong = [...graph].flatMap(([file, imports]) => {
      const own = floorOf(file)!;
      const sameFolder = (target: string) => domains.some((d) => name(file).startsWith(d) && name(target).startsWith(d));
      return imports
        .filter((target) => !name(target).startsWith('src/generated/'))
        .filter((target) => (floorOf(target) ?? Infinity) > own && !sameFolder(target))
        .map((target) => `${name(file)} -> ${name(target)}`);
    });
    expect(wrong).toEqual([]);
  });
});
