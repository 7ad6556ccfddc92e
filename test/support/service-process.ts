import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** The service compiled into a directory of its own, runnable as `node <dir>/src/main.js`. */
export interface BuiltService {
  dir: string;
  main: string;
  remove(): Promise<void>;
}

/**
 * Compiles the service (`src/` and `resolvers/`, with the build's compiler options) with the project's own `tsc` into
 * a fresh temporary directory, so a test can run it as a separate OS process from a fresh clone (no `dist/` needed,
 * and nothing shared with `npm run build`). The directory gets links to `node_modules/` and `schema/` and a
 * `package.json` marking it as ESM, as the repository root has. Type errors are `npm run check`'s business: the build
 * fails only when tsc emitted nothing.
 */
export async function buildService(root = process.cwd()): Promise<BuiltService> {
  if (!existsSync(join(root, 'tsconfig.build.json'))) throw new Error(`not the repository root: ${root}`);
  const dir = await mkdtemp(join(tmpdir(), 'paygraph-build-'));
  const main = join(dir, 'src/main.js');
  try {
    // Linked first: tsc looks for the `node` types from the directory of the config it is given.
    await symlink(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const tsconfig = join(dir, 'tsconfig.json');
    await writeFile(
      tsconfig,
      JSON.stringify({
        extends: join(root, 'tsconfig.build.json'),
        compilerOptions: { rootDir: root, outDir: dir, tsBuildInfoFile: join(dir, '.tsbuildinfo'), sourceMap: false },
        include: [join(root, 'src'), join(root, 'resolvers')],
      }),
    );
    try {
      await promisify(execFile)(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], {
        cwd: root,
        maxBuffer: 16 * 1024 * 1024,
      });
    } catch (error) {
      if (!existsSync(main)) throw new Error(`tsc emitted nothing: ${String(at(error, 'stdout') ?? error)}`);
    }
    await symlink(join(root, 'schema'), join(dir, 'schema'), 'dir');
    await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, main, remove: () => rm(dir, { recursive: true, force: true }) };
}

function at(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
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
