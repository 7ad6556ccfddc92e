import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

/** The service built into a directory of its own, runnable as `node <dir>/src/main.js`. */
export interface BuiltService {
  dir: string;
  main: string;
  remove(): Promise<void>;
}

/**
 * Bundles the service (`src/` and `resolvers/`, below) into a temporary directory, so a test can run it as a separate
 * OS process from a fresh clone (no `dist/` needed, and nothing shared with `npm run build`). The directory gets links
 * to `node_modules/` and `schema/` and a `package.json` marking it as ESM, as the repository root has. Type errors are
 * `npm run check`'s business: the bundler strips types without checking them.
 *
 * One build serves every test file of a run: the directory is named by a digest of the sources, and the first file
 * to ask builds it under a lock directory while the others wait for it. Nothing is removed: the service processes run
 * in the directory.
 */
export async function buildService(root = process.cwd()): Promise<BuiltService> {
  if (!existsSync(join(root, 'tsconfig.build.json'))) throw new Error(`not the repository root: ${root}`);
  const dir = join(tmpdir(), `paygraph-build-${await sourceDigest(root)}`);
  const built: BuiltService = { dir, main: join(dir, 'src/main.js'), remove: async () => {} };
  const complete = join(dir, '.complete');
  const lock = `${dir}.lock`;
  for (const deadline = Date.now() + 10 * 60_000; Date.now() < deadline;) {
    if (existsSync(complete)) return linkPages(root, built);
    try {
      await mkdir(lock);
    } catch {
      // Another test file is building it: wait for that build.
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    try {
      if (!existsSync(complete)) await buildInto(root, dir);
      return linkPages(root, built);
    } finally {
      await rm(lock, { recursive: true, force: true });
    }
  }
  throw new Error(`timed out waiting for another test file's build of the service in ${dir}`);
}

/**
 * The pages' bundles (`dist/pages`, built by jest's set-up from src/pages/client) where the built service looks for
 * them, beside its own output: its pages (a production landing page) are served from them.
 */
async function linkPages(root: string, built: BuiltService): Promise<BuiltService> {
  const link = join(built.dir, 'dist');
  if (!existsSync(link)) await symlink(join(root, 'dist'), link, 'dir').catch(() => undefined);
  return built;
}

async function buildInto(root: string, dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir);
  try {
    await symlink(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    await bundleService(root, dir);
    await symlink(join(root, 'schema'), join(dir, 'schema'), 'dir');
    await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    await writeFile(join(dir, '.complete'), '');
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * The modules a test starts a process with, each an entry of the bundle at the path its unbundled module has (`tsc`'s
 * output layout, as in `dist/`): the service, the operator's command line, and the tracing hooks loaded with
 * `--import` before the service.
 */
const ENTRIES = ['src/main', 'src/cli', 'src/platform/observability/tracing'];

/**
 * Packages loaded from the linked `node_modules` as separate modules, as the service loads them unbundled:
 * - OpenTelemetry patches `pg` and `graphql` (file by file) by hooking their loading (`require` and the ESM loader),
 *   which a copy inside the bundle never goes through: bundled, the trace has no query or operation spans. Its SDK
 *   and instrumentations stay outside too: the loader hook the tracing module registers by name works with the
 *   instance of import-in-the-middle they load. (`@opentelemetry/api` is bundled: it keeps its state in a global,
 *   made for several copies in one process.)
 * - PGlite reads its WebAssembly and data files next to its own module.
 */
const EXTERNAL = [
  'pg',
  'pg-*',
  'graphql',
  '@opentelemetry/sdk-node',
  '@opentelemetry/exporter-trace-otlp-http',
  '@opentelemetry/instrumentation*',
  '@electric-sql/pglite',
];

/**
 * Bundles the service (`src/` and `resolvers/` of `root`, and the packages they import but the external ones) into
 * `dir` with esbuild, in about 3 s. A start then loads about 320 modules (graphql and pg's, mostly) instead of 2,470,
 * and to "listening" on PostgreSQL costs about 1.1 s of CPU instead of 1.8 (bench/README.md, "CI time"); `tsc` took
 * about 25 s of CPU to emit the same sources as separate modules. Shared code is split into chunks, so a module that
 * several entries import (the telemetry shutdown hooks, which the tracing preload registers and the service runs) is
 * one instance in a process, and what the service imports late (`await import`) is still loaded late.
 */
async function bundleService(root: string, dir: string): Promise<void> {
  await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(ENTRIES.map((entry) => [entry, join(root, `${entry}.ts`)])),
    outdir: dir,
    chunkNames: 'src/chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    external: EXTERNAL,
    // Names as written: MikroORM finds its extensions, and much else, by class name (a renamed `Migrator` is not
    // found, and it loads a second copy of the ORM from node_modules).
    keepNames: true,
    // CommonJS packages in an ES module bundle: their `require` of Node's built-ins needs a real `require`.
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    plugins: [sourceLocations(root, dir)],
    logLevel: 'error',
  });
}

/**
 * The service finds files relative to its own modules (`schema/` from the graph's schema module, `dist/pages` from
 * the pages' kit, the OpenTelemetry hook resolved from the tracing module, the command line checking that it is the
 * main module): each of its modules sees as `import.meta.url` the URL its unbundled module would have in `dir`
 * (`<dir>/src/platform/graph/schema.js`), so every such lookup finds what it finds unbundled. Bundled packages see
 * their chunk's URL, from which the linked `node_modules` resolves as from their own folder (MikroORM looks for
 * optional packages that way); PGlite, which reads files beside its module, is external.
 */
function sourceLocations(root: string, dir: string): Plugin {
  const own = [join(root, 'src') + sep, join(root, 'resolvers') + sep];
  return {
    name: 'source-locations',
    setup(builder) {
      builder.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (!own.some((folder) => args.path.startsWith(folder))) return undefined;
        const url = pathToFileURL(join(dir, relative(root, args.path).replace(/\.ts$/, '.js'))).href;
        const source = await readFile(args.path, 'utf8');
        return { contents: source.replaceAll('import.meta.url', JSON.stringify(url)), loader: 'ts' };
      });
    },
  };
}

/**
 * A digest of what the build compiles (and where from, and how: this module, so a changed build, or the `tsc` build
 * an older checkout left in the temp directory, is not taken for this one), so a changed source gets a build of its own.
 */
async function sourceDigest(root: string): Promise<string> {
  const hash = createHash('sha256')
    .update(root)
    .update(await readFile(new URL(import.meta.url)));
  const files = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];
  for (const folder of ['src', 'resolvers']) {
    for (const entry of await readdir(join(root, folder), { recursive: true, withFileTypes: true })) {
      if (entry.isFile() && entry.name.endsWith('.ts')) files.push(join(entry.parentPath, entry.name).slice(root.length + 1));
    }
  }
  for (const file of files.sort()) hash.update(file).update(await readFile(join(root, file)));
  return hash.digest('hex').slice(0, 16);
}

/**
 * One run of the built service as a child process, on a port of its choosing (`PORT=0`): `listening` resolves with
 * the port it prints once it serves, and rejects if it exits first. `kill()` sends SIGKILL, no shutdown at all.
 */
export class ServiceProcess {
  readonly listening: Promise<number>;
  private readonly child: ChildProcess;
  private readonly exited: Promise<void>;
  private log = '';

  /** `preload`: modules of the build to load first with `--import` (the tracing hooks). */
  constructor(built: BuiltService, env: Record<string, string>, preload: readonly string[] = []) {
    const imports = preload.flatMap((module) => ['--import', join(built.dir, module)]);
    this.child = spawn(process.execPath, ['--experimental-async-context-frame', ...imports, built.main], {
      cwd: built.dir,
      env: { ...process.env, PORT: '0', METRICS_PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.once('error', () => resolve());
    });
    this.listening = new Promise<number>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        this.log = (this.log + chunk.toString()).slice(-20_000);
        const port = /"msg":"listening","port":(\d+)/.exec(this.log)?.[1];
        if (port) resolve(Number(port));
      };
      this.child.stdout!.on('data', onData);
      this.child.stderr!.on('data', onData);
      this.child.once('exit', (code, signal) => reject(new Error(`the service exited (${signal ?? code}) before listening:\n${this.log}`)));
      this.child.once('error', reject);
    });
    // A run killed on purpose before it listens must not surface as an unhandled rejection.
    this.listening.catch(() => undefined);
  }

  get output(): string {
    return this.log;
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends SIGTERM (the graceful stop) and resolves with the exit code once the process has ended. */
  async terminate(): Promise<number | null> {
    if (this.running) this.child.kill('SIGTERM');
    await this.exited;
    return this.child.exitCode;
  }

  async kill(): Promise<void> {
    if (this.running) this.child.kill('SIGKILL');
    await this.exited;
  }
}
