import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'esbuild';

/**
 * Dependencies that jest loads as one module each, instead of one per file of the package: jest gives every test
 * file a module registry of its own, so each of its ~300 file runs links and evaluates every module the service
 * imports again (2,358 of them, 1,900 in node_modules). These packages are ESM-only or loaded as ESM, pure JavaScript,
 * and many files each (typebox 683, kysely 254); bundled, a file run costs 0.13-0.2 s less CPU
 * (bench/README.md, "CI time"). The service itself, and `npm start`, load them from node_modules as before.
 *
 * Every specifier a module of the run imports of these packages is mapped (jest.config.js moduleNameMapper), and all
 * of them are built together with shared chunks, so a class or symbol one subpath defines is the same object in all.
 * A mapping names a package, not a version: only a package of which the lockfile holds one copy can be bundled (the
 * @graphql-tools packages, in five versions, cannot), which the build checks.
 */
const SPECIFIERS = ['typebox', 'typebox/compile', 'kysely'];

const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const bundled = new Set(SPECIFIERS.map(packageOf));
const fileNameOf = (specifier) => specifier.replace(/^@/, '').replaceAll('/', '__');

/** jest's moduleNameMapper entries for the bundles, built first when this lockfile has none yet. */
export async function dependencyBundleMapper(root) {
  const digest = createHash('sha256')
    .update(readFileSync(join(root, 'package-lock.json')))
    .update(readFileSync(new URL(import.meta.url)))
    .digest('hex')
    .slice(0, 16);
  const dir = join(root, 'node_modules/.cache/paygraph-jest-bundles', digest);
  if (!existsSync(dir)) await buildInto(root, dir);
  return Object.fromEntries(
    SPECIFIERS.map((specifier) => [`^${specifier.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, join(dir, `${fileNameOf(specifier)}.mjs`)]),
  );
}

/** Built beside and renamed into place: two runs that start at once each build, and the first rename wins. */
async function buildInto(root, dir) {
  const copies = Object.keys(JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages);
  for (const name of bundled) {
    const found = copies.filter((path) => path === `node_modules/${name}` || path.endsWith(`/node_modules/${name}`));
    if (found.length !== 1) throw new Error(`${name} is in the lockfile ${found.length} times: a bundle would stand for all of them`);
  }
  const partial = `${dir}.${process.pid}.partial`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(SPECIFIERS.map((specifier) => [fileNameOf(specifier), specifier])),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    outdir: partial,
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
    // Other packages (graphql) stay imports, so they are the one copy jest loads for everybody.
    plugins: [
      {
        name: 'other-packages-external',
        setup(esbuild) {
          esbuild.onResolve({ filter: /^[^./]/ }, (args) =>
            args.kind === 'entry-point' || bundled.has(packageOf(args.path)) ? undefined : { path: args.path, external: true },
          );
        },
      },
    ],
  });
  await rename(partial, dir).catch(async (error) => {
    await rm(partial, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
  });
}
