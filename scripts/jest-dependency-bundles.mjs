import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/**
 * Dependencies that jest loads as a few bundled modules, instead of one module per file of each package: jest gives
 * every test file a module registry of its own, so each of its ~300 file runs links and evaluates every module the
 * service imports again. Bundled here: typebox (683 files), kysely (254), graphql (130), @mikro-orm (200),
 * @apollo/server with the @graphql-tools it nests (140), @opentelemetry/api (100), qrcode with the pngjs it nests,
 * pngjs, rate-limiter-flexible, prom-client, ws, pg. typebox and kysely saved 0.13-0.2 s of CPU per file run, the
 * others about 0.12 s more (bench/README.md, "CI time"). The service itself, and `npm start`, load them from
 * node_modules as before.
 *
 * Identity: every specifier of these packages that a module of the run imports is listed (jest.config.js maps each to
 * its bundle), and all are built together with shared chunks, so a class one subpath defines is the same object in all
 * (checked after the build against Node). Any other subpath of a bundled package is mapped to a file that does not
 * exist, so a new one fails the files that import it instead of loading a second copy. A mapping names a package, not
 * a version: a copy the lockfile nests under a bundled package (qrcode's pngjs 5, @apollo/server's @graphql-tools) is
 * inlined into the bundle of its owner, as Node gives it to that owner alone; a copy nested under a package jest loads
 * from node_modules would get the bundle instead, so the build refuses a bundled package that has one. This is why
 * @graphql-tools/schema, merge and utils stay in node_modules: @graphql-codegen (graph-limits-introspection.test.ts)
 * nests other versions of them.
 *
 * Packages that are not bundled stay imports of their one copy in node_modules, shared by the bundles and the modules
 * jest loads from there. A CommonJS module jest loads from node_modules cannot `require` a bundle (an ES module: jest
 * fails the file, "Must use import to load ES Module"), so the CommonJS importers of bundled packages are bundled too.
 * CommonJS packages are wrapped in an ES module whose named exports are the ones Node (and jest) give them.
 */
const SPECIFIERS = [
  'typebox',
  'typebox/compile',
  'kysely',
  'graphql',
  'graphql/error',
  'graphql/execution',
  'graphql/language',
  'graphql/type',
  'graphql/utilities',
  'graphql/validation',
  'graphql/jsutils/isIterableObject',
  'graphql/jsutils/keyMap',
  'graphql/jsutils/keyValMap',
  'graphql/jsutils/Path',
  'graphql-ws',
  'graphql-ws/use/ws',
  // CommonJS importers of graphql or ws: @apollo/client's graphql-tag, @graphql-codegen's isomorphic-ws and relay-compiler.
  'graphql-tag',
  'isomorphic-ws',
  '@ardatan/relay-compiler/lib/core/CompilerContext.js',
  '@ardatan/relay-compiler/lib/core/IRPrinter.js',
  '@ardatan/relay-compiler/lib/core/RelayParser.js',
  '@ardatan/relay-compiler/lib/core/Schema.js',
  '@ardatan/relay-compiler/lib/transforms/ApplyFragmentArgumentTransform.js',
  '@ardatan/relay-compiler/lib/transforms/FlattenTransform.js',
  '@ardatan/relay-compiler/lib/transforms/InlineFragmentsTransform.js',
  '@ardatan/relay-compiler/lib/transforms/SkipRedundantNodesTransform.js',
  '@apollo/server',
  '@apollo/server/errors',
  '@apollo/server/plugin/disabled',
  // CommonJS importers of graphql.
  '@apollo/utils.dropunuseddefinitions',
  '@apollo/utils.keyvaluecache',
  '@apollo/utils.printwithreducedwhitespace',
  '@apollo/utils.removealiases',
  '@apollo/utils.sortast',
  '@apollo/utils.stripsensitiveliterals',
  '@apollo/utils.usagereporting',
  '@mikro-orm/core',
  '@mikro-orm/core/dataloader',
  '@mikro-orm/core/file-discovery',
  '@mikro-orm/core/fs-utils',
  '@mikro-orm/core/migrations',
  '@mikro-orm/core/schema',
  '@mikro-orm/sql',
  '@mikro-orm/postgresql',
  '@mikro-orm/pglite',
  '@mikro-orm/migrations',
  '@opentelemetry/api',
  'pg',
  'pg/lib/result.js',
  'pg/lib/utils.js',
  // CommonJS importers of pg (pg-pool only when given no Client).
  'pg-cursor',
  'pg-pool',
  'ws',
  'qrcode',
  'pngjs',
  'rate-limiter-flexible',
  'prom-client',
];

const packageOf = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const bundled = new Set(SPECIFIERS.map(packageOf));
const fileNameOf = (specifier) => specifier.replace(/^@/, '').replaceAll('/', '__').replace(/\.js$/, '');
const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const builtin = new Set(builtinModules);

/** jest's moduleNameMapper entries for the bundles, built first when this lockfile has none yet. */
export async function dependencyBundleMapper(root) {
  const digest = createHash('sha256')
    .update(readFileSync(join(root, 'package-lock.json')))
    .update(readFileSync(new URL(import.meta.url)))
    .digest('hex')
    .slice(0, 16);
  const dir = join(root, 'node_modules/.cache/paygraph-jest-bundles', digest);
  if (!existsSync(dir)) await buildInto(root, dir);
  const unlisted = join(dir, 'a-subpath-of-a-bundled-package-not-in-SPECIFIERS-of-scripts-jest-dependency-bundles.mjs');
  return {
    ...Object.fromEntries(SPECIFIERS.map((specifier) => [`^${escaped(specifier)}$`, join(dir, `${fileNameOf(specifier)}.mjs`)])),
    // package.json stays readable: @mikro-orm resolves its packages' to compare their versions.
    ...Object.fromEntries([...bundled].map((name) => [`^${escaped(name)}(?:/(?!package\\.json$).*)?$`, unlisted])),
  };
}

/** The lockfile's copies of each bundled package: one at the top, any other nested under a bundled package. */
function checkLockfile(root) {
  const copies = Object.keys(JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages);
  for (const name of bundled) {
    const found = copies.filter((path) => path === `node_modules/${name}` || path.endsWith(`/node_modules/${name}`));
    if (!found.includes(`node_modules/${name}`))
      throw new Error(`${name} is not at the top of node_modules: its bundle would be another copy`);
    for (const nested of found.filter((path) => path !== `node_modules/${name}`)) {
      const owner = packageOf(nested.slice('node_modules/'.length));
      if (!bundled.has(owner))
        throw new Error(
          `${nested} is a copy of ${name} that ${owner}, loaded from node_modules, would import: the bundle would stand for it`,
        );
    }
  }
}

/**
 * How Node loads a specifier from the root: an ES module is an entry as it is; a CommonJS one is wrapped, its named
 * exports the ones Node finds (cjs-module-lexer, as jest does), read once when it has run, as both do.
 */
async function entryOf(specifier) {
  const file = fileOf(specifier);
  if (file.endsWith('.mjs') || (!file.endsWith('.cjs') && typeOfPackage(file) === 'module')) return { esm: true };
  const namespace = await import(pathToFileURL(file).href);
  const names = Object.keys(namespace).filter(
    (name) => name !== 'default' && name !== 'module.exports' && Object.hasOwn(namespace.default, name),
  );
  const source = [
    // `require`: its module.exports as it is (an `import` would take `.default` of a module marked __esModule).
    `const m = require(${JSON.stringify(specifier)});`,
    'export default m;',
    ...names.map((name, i) => `const e${i} = m[${JSON.stringify(name)}];\nexport { e${i} as ${JSON.stringify(name)} };`),
  ].join('\n');
  return { esm: false, source, names };
}

/** Node's file for an `import` of the specifier from the root; jest also resolves directories (`graphql/error`). */
function fileOf(specifier) {
  const file = fileURLToPath(import.meta.resolve(specifier));
  return existsSync(file) && statSync(file).isFile() ? file : requireHere.resolve(specifier);
}
const requireHere = createRequire(import.meta.url);

function typeOfPackage(file) {
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      if (pkg.name || pkg.type) return pkg.type ?? 'commonjs';
    }
  }
  return 'commonjs';
}

/** Built beside and renamed into place: two runs that start at once each build, and the first rename wins. */
async function buildInto(root, dir) {
  checkLockfile(root);
  const entries = Object.fromEntries(await Promise.all(SPECIFIERS.map(async (specifier) => [specifier, await entryOf(specifier)])));
  const topModules = realpathSync(join(root, 'node_modules')) + sep;
  const partial = `${dir}.${process.pid}.partial`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  try {
    await build({
      absWorkingDir: root,
      entryPoints: SPECIFIERS.map((specifier) => ({
        in: entries[specifier].esm ? specifier : `wrapped:${specifier}`,
        out: fileNameOf(specifier),
      })),
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      // Node's own choice of file (the `node` and `import`/`require` conditions, `main`), as jest makes it.
      conditions: ['node'],
      mainFields: ['main'],
      outdir: partial,
      outExtension: { '.js': '.mjs' },
      logLevel: 'warning',
      // The CommonJS code's `require` of Node's modules and of packages left in node_modules (jest's, in a test).
      banner: {
        js: "import { createRequire as __bundleCreateRequire } from 'node:module';\nconst require = __bundleCreateRequire(import.meta.url);",
      },
      plugins: [
        {
          name: 'bundled-packages-only',
          setup(esbuild) {
            esbuild.onResolve({ filter: /^wrapped:/ }, (args) => ({ path: args.path.slice('wrapped:'.length), namespace: 'wrapped' }));
            esbuild.onLoad({ filter: /.*/, namespace: 'wrapped' }, (args) => ({
              contents: entries[args.path].source,
              resolveDir: root,
              loader: 'js',
            }));
            esbuild.onResolve({ filter: /^[^./]/ }, async (args) => {
              if (args.pluginData?.inner || args.path.startsWith('node:') || builtin.has(args.path)) return undefined;
              const found = await esbuild.resolve(args.path, {
                kind: args.kind,
                importer: args.importer,
                resolveDir: args.resolveDir,
                pluginData: { inner: true },
              });
              // Not installed (pg-native, optional @mikro-orm drivers): left to fail where it is imported, as before.
              if (found.errors.length > 0) return { path: args.path, external: true };
              const inside = found.path.startsWith(topModules) ? found.path.slice(topModules.length) : undefined;
              const topCopy = inside !== undefined && !inside.includes(`${sep}node_modules${sep}`);
              // A copy nested under a bundled package is its own: inlined, as Node would give it to that package alone.
              if (!topCopy || bundled.has(packageOf(inside.split(sep).join('/')))) return { path: found.path };
              return { path: args.path, external: true };
            });
          },
        },
      ],
    });
    await checkBundles(partial, entries);
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
  await rename(partial, dir).catch(async (error) => {
    await rm(partial, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
  });
}

/**
 * Each bundle exports what Node gives for its specifier, and a name two subpaths of a package share is one object in
 * the bundles exactly when it is in Node (graphql's `GraphQLSchema`, from `graphql` and `graphql/type`): else the
 * bundles would hold a second copy of a class.
 */
async function checkBundles(partial, entries) {
  const bundle = {};
  const node = {};
  for (const specifier of SPECIFIERS) {
    bundle[specifier] = await import(pathToFileURL(join(partial, `${fileNameOf(specifier)}.mjs`)).href);
    node[specifier] = await import(pathToFileURL(fileOf(specifier)).href);
    const names = Object.keys(bundle[specifier]);
    const missing = Object.keys(node[specifier]).filter(
      (name) => name !== 'module.exports' && !names.includes(name) && (entries[specifier].esm || entries[specifier].names.includes(name)),
    );
    if (missing.length > 0) throw new Error(`The bundle of ${specifier} lacks ${missing.join(', ')}`);
  }
  for (const a of SPECIFIERS)
    for (const b of SPECIFIERS)
      if (a < b && packageOf(a) === packageOf(b))
        for (const name of Object.keys(bundle[a]))
          if (name !== 'default' && name in bundle[b] && (bundle[a][name] === bundle[b][name]) !== (node[a][name] === node[b][name]))
            throw new Error(
              `${name} of ${a} and of ${b} are ${node[a][name] === node[b][name] ? 'one' : 'two'} in Node, not in the bundles`,
            );
}
