#!/usr/bin/env node
// Bundles the browser code of the pages (src/pages/client/) into dist/pages/: hashed file names (served with a
// year-long cache), a gzip and a brotli copy of each text file, and manifest.json naming each entry's files.
// Runs in `npm run build` (so `npm start`) and in jest's global set-up (so `npm test`); skips the work when the
// sources are older than the manifest. `--force` rebuilds regardless.
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = join(root, 'src/pages/client');
const outDir = join(root, 'dist/pages');
const manifestPath = join(outDir, 'manifest.json');

/** Page entries, loaded by a `<script type="module">`; workers are entries of their own, found by the IDE through the manifest. */
const entries = {
  dashboard: join(sourceDir, 'dashboard/main.tsx'),
  ide: join(sourceDir, 'ide/main.tsx'),
  wallet: join(sourceDir, 'wallet/main.ts'),
  'editor.worker': join(root, 'node_modules/monaco-editor/esm/vs/editor/editor.worker.js'),
  'json.worker': join(root, 'node_modules/monaco-editor/esm/vs/language/json/json.worker.js'),
  'graphql.worker': join(root, 'node_modules/monaco-graphql/esm/graphql.worker.js'),
};

async function newestMtime(dir) {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    newest = Math.max(newest, (await stat(join(entry.parentPath, entry.name))).mtimeMs);
  }
  return newest;
}

async function upToDate() {
  try {
    const built = (await stat(manifestPath)).mtimeMs;
    const inputs = [
      await newestMtime(sourceDir),
      // The wallet script shares the outcome words with the server (src/pages/kit/payment-outcome.ts).
      (await stat(join(root, 'src/pages/kit/payment-outcome.ts'))).mtimeMs,
      (await stat(join(root, 'src/pages/dashboard-documents.ts'))).mtimeMs,
      (await stat(join(root, 'package-lock.json'))).mtimeMs,
      (await stat(fileURLToPath(import.meta.url))).mtimeMs,
    ];
    return inputs.every((mtime) => mtime < built);
  } catch {
    return false;
  }
}

/**
 * The dashboard's documents by id, from src/pages/dashboard-documents.ts (the list the service registers as trusted
 * documents at start): bundled for Node in memory and imported, so the ids are computed by the one function.
 */
async function dashboardDocuments() {
  const bundled = await build({
    entryPoints: [join(root, 'src/pages/dashboard-documents.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    write: false,
    logLevel: 'warning',
  });
  const module = await import(`data:text/javascript;base64,${Buffer.from(bundled.outputFiles[0].text).toString('base64')}`);
  return module.dashboardDocuments();
}

const COMPRESSIBLE = /\.(js|css|json|svg|ttf|map)$/;

/** Builds the bundles unless they are newer than every input (`force`: regardless). */
export async function buildPages({ force = false } = {}) {
  if (!force && (await upToDate())) return;
  const started = Date.now();
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const documents = await dashboardDocuments();
  const result = await build({
    entryPoints: entries,
    outdir: outDir,
    bundle: true,
    splitting: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    minify: true,
    sourcemap: false,
    legalComments: 'linked',
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    jsx: 'automatic',
    loader: { '.ttf': 'file', '.woff': 'file', '.woff2': 'file' },
    // The bundle names each of the dashboard's documents by its id (src/pages/client/shared/graph.ts).
    define: {
      'process.env.NODE_ENV': '"production"',
      __DOCUMENT_IDS__: JSON.stringify(Object.fromEntries([...documents].map(([id, text]) => [text, id]))),
    },
    tsconfig: join(sourceDir, 'tsconfig.json'),
    metafile: true,
    logLevel: 'warning',
  });
  const manifest = { entries: {} };
  for (const [file, output] of Object.entries(result.metafile.outputs)) {
    if (!output.entryPoint) continue;
    // esbuild names an entry by its real path: node_modules may be a link (a git worktree sharing another's).
    const name = Object.entries(entries).find(([, path]) => relative(root, realpathSync(path)) === output.entryPoint)?.[0];
    if (!name) continue;
    manifest.entries[name] = {
      script: relative(outDir, join(root, file)),
      style: output.cssBundle ? relative(outDir, join(root, output.cssBundle)) : undefined,
      imports: output.imports.filter((i) => i.kind === 'import-statement').map((i) => relative(outDir, join(root, i.path))),
    };
  }
  // The dashboard's manifest, in graphql-codegen's client preset format ({ id: document }): what the service registers.
  await writeFile(join(outDir, 'dashboard-documents.json'), `${JSON.stringify(Object.fromEntries(documents), null, 2)}\n`);
  let bytes = 0;
  for (const entry of await readdir(outDir, { withFileTypes: true })) {
    if (!entry.isFile() || !COMPRESSIBLE.test(entry.name)) continue;
    const path = join(outDir, entry.name);
    const content = await readFile(path);
    bytes += content.length;
    await writeFile(`${path}.gz`, gzipSync(content, { level: 9 }));
    await writeFile(
      `${path}.br`,
      brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: content.length > 256 * 1024 ? 6 : 11 } }),
    );
  }
  manifest.buildId = createHash('sha256').update(JSON.stringify(manifest.entries)).digest('hex').slice(0, 16);
  await writeFile(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  console.log(`pages built into ${relative(root, outDir)} (${Math.round(bytes / 1024)} KB) in ${Date.now() - started} ms`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildPages({ force: process.argv.includes('--force') });
