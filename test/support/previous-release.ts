import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** Every module's migrations (the platform's under src/platform/db/, each domain's under src/<domain>/). */
const MIGRATIONS = ':(glob)src/**/migrations/**';

/** The release a rolling upgrade to this checkout replaces: the source before its newest schema change. */
export interface PreviousRelease {
  /** The commit whose sources these are: the first parent of `changedBy`. */
  commit: string;
  /** The newest commit of HEAD's first-parent history (main's own line) that added a migration. */
  changedBy: string;
  /** The migrations this checkout has and that release has not, which the upgrade runs while it serves. */
  newMigrations: string[];
  /** Its sources, extracted with `git archive`, with links to this checkout's `node_modules` and `dist`. */
  root: string;
}

/**
 * Finds and extracts the release before this checkout's newest migration, from the git history of the checkout the
 * test runs from: the newest commit of HEAD's first-parent history (on main, main's own commits and merges) that added
 * a migration, and its first parent, which is the version still serving when that migration runs. "Added", not
 * "changed": a later fix to a migration file changes no schema a running database has (applied migrations are never
 * run again), and the release before that fix already had the migration.
 *
 * Extracted once per commit into the temp directory (the name carries the commit), so the service build of it
 * (`buildService`, one per source digest) is made once too and found again by the next run.
 */
export async function previousRelease(root = process.cwd()): Promise<PreviousRelease> {
  await historyOf(root);
  const changedBy = (await git(root, 'log', '--first-parent', '--diff-filter=A', '--format=%H', '-1', 'HEAD', '--', MIGRATIONS)).trim();
  if (!changedBy) throw new Error(`no commit of HEAD's first-parent history in ${root} added a migration (${MIGRATIONS})`);
  const commit = (await git(root, 'rev-parse', '--verify', '--quiet', `${changedBy}^1`).catch(() => '')).trim();
  if (!commit) throw new Error(`${changedBy} added the first migrations: there is no release before it to upgrade from`);
  const newMigrations = (await git(root, 'diff', '--name-only', '--diff-filter=A', commit, 'HEAD', '--', MIGRATIONS))
    .split('\n')
    .filter(Boolean);
  const dir = join(tmpdir(), `paygraph-release-${commit.slice(0, 16)}`);
  if (!existsSync(join(dir, '.complete'))) await extract(root, commit, dir);
  return { commit, changedBy, newMigrations, root: dir };
}

/**
 * The test needs the checkout's history: say so plainly where it is missing (a copy without `.git`, a shallow clone,
 * git refusing a repository another user owns), rather than finding no migration or the wrong one.
 */
async function historyOf(root: string): Promise<void> {
  const inside = await git(root, 'rev-parse', '--is-inside-work-tree').catch((error: unknown) => {
    throw new Error(
      `the upgrade test reads the git history of the checkout it runs from, and git found none in ${root}: run it from a clone ` +
        `with its history (${String(stderrOf(error) ?? error).trim()})`,
    );
  });
  if (inside.trim() !== 'true') throw new Error(`${root} is not a git work tree: the upgrade test reads its history`);
  if ((await git(root, 'rev-parse', '--is-shallow-repository')).trim() === 'true') {
    throw new Error(
      `${root} is a shallow clone: the upgrade test needs the history back to the release before the newest migration ` +
        `(clone without --depth, or run git fetch --unshallow)`,
    );
  }
}

async function extract(root: string, commit: string, dir: string): Promise<void> {
  const partial = `${dir}.${process.pid}.${Date.now()}`;
  await mkdir(partial, { recursive: true });
  try {
    // What the service build reads (service-process.ts: sources, compiler options, the lockfile for its digest) and
    // what the running service reads (the SDL).
    const archive = `${partial}.tar`;
    await git(
      root,
      'archive',
      '--format=tar',
      `--output=${archive}`,
      commit,
      '--',
      'src',
      'resolvers',
      'schema',
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'tsconfig.build.json',
    );
    await promisify(execFile)('tar', ['-xf', archive, '-C', partial]);
    await rm(archive, { force: true });
    // This checkout's packages (a superset, or the test says otherwise by failing to build) and page bundles.
    await symlink(join(root, 'node_modules'), join(partial, 'node_modules'), 'dir');
    await symlink(join(root, 'dist'), join(partial, 'dist'), 'dir');
    await writeFile(join(partial, '.complete'), commit);
    // Another run that extracted the same commit meanwhile wins; its copy is the same.
    await rename(partial, dir).catch(() => rm(partial, { recursive: true, force: true }));
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
}

async function git(root: string, ...args: string[]): Promise<string> {
  return (await promisify(execFile)('git', ['-C', root, ...args], { maxBuffer: 16 * 1024 * 1024 })).stdout;
}

function stderrOf(error: unknown): unknown {
  return typeof error === 'object' && error !== null ? (error as { stderr?: unknown }).stderr : undefined;
}
