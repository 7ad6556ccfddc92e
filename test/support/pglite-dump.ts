import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { migrate, migrationsDigest } from './migrated-schema.js';

/**
 * A dump of an in-memory PGlite with every migration applied, made once per set of migrations (their names and
 * code) and kept in the temp directory, so each test app loads it instead of creating a cluster and migrating it.
 * Workers that race to make it each write their own file and rename it into place: the last one wins, all equal.
 */
export async function migratedPgliteDump(): Promise<Blob> {
  return dumpLike(await migratedDumpBytes());
}

/**
 * A dump of a new cluster with no migration applied, for tests that migrate a database themselves (a migration's test,
 * the migrator's own): a new cluster (initdb) costs about 6.5 s of CPU in PGlite, loading this dump under one.
 */
export async function emptyPgliteDump(): Promise<Blob> {
  return dumpLike(await emptyDumpBytes());
}

/** Writes the migrated database into `dataDir` (a directory without a database yet), where PGlite then opens it. */
export async function writeMigratedPgliteDump(dataDir: string): Promise<void> {
  const pglite = await PGlite.create({ dataDir, loadDataDir: await migratedPgliteDump() });
  await pglite.close();
}

/**
 * What PGlite reads of the dump (its bytes and type) as own properties: MikroORM copies its driver options deeply,
 * and a copied Blob has lost what its methods need ("Illegal invocation"); functions are copied as they are.
 */
function dumpLike(bytes: Uint8Array): Blob {
  // Each call of the two dumps above reads its file anew, so the bytes are this dump's own and are handed over whole
  // (a copy across realms, as with the Buffer above, costs about 130 ms).
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
  const dump = {
    type: 'application/x-tar',
    size: bytes.byteLength,
    arrayBuffer: async () => (whole ? bytes.buffer : bytes.slice().buffer),
  };
  return dump as unknown as Blob;
}

/**
 * Every test app loads this dump, so its size and settings are paid once per app (about 150 per test run): a default
 * cluster's dump is 42 MB (a 16 MB WAL segment and two template databases no test connects to beside the one it
 * uses), and its 128 MB of shared buffers are cleared at each start. Measured per start in Node (PGlite 0.5.8): 376 ms
 * as it was, 164 ms with the settings below. A test database holds a few hundred rows: 16 MB of buffers is plenty.
 */
const INITDB_PARAMS = ['--wal-segsize=1'];
const AFTER_INITDB = [
  `alter system set shared_buffers = '16MB'`,
  `alter system set fsync = off`,
  `alter system set full_page_writes = off`,
  `alter system set wal_init_zero = off`,
  'alter database template0 is_template false',
  'drop database template0',
  'alter database template1 is_template false',
  'drop database template1',
  'checkpoint',
];

async function migratedDumpBytes(): Promise<Uint8Array> {
  return kept(`paygraph-pglite-migrated-${migrationsDigest([...INITDB_PARAMS, ...AFTER_INITDB, 'from the empty dump'])}.tar`, async () => {
    const pglite = await PGlite.create({ loadDataDir: await emptyPgliteDump() });
    await migrate({ dataDir: 'memory://', pglite: { pglite } });
    await pglite.exec('checkpoint');
    return pglite;
  });
}

async function emptyDumpBytes(): Promise<Uint8Array> {
  const key = createHash('sha256')
    .update([...INITDB_PARAMS, ...AFTER_INITDB].join('\n'))
    .digest('hex')
    .slice(0, 16);
  return kept(`paygraph-pglite-empty-${key}.tar`, async () => {
    const pglite = await PGlite.create({ initDbStartParams: INITDB_PARAMS });
    for (const statement of AFTER_INITDB) await pglite.exec(statement);
    return pglite;
  });
}

/** The dump kept in the temp directory under `name`, made by dumping what `make` opened when there is none yet. */
async function kept(name: string, make: () => Promise<PGlite>): Promise<Uint8Array> {
  const file = join(tmpdir(), name);
  try {
    // A view of the Buffer, not `new Uint8Array(buffer)`: the test file's Uint8Array is another realm's (jest's
    // context), and copying across realms went element by element: about 130 ms of CPU for each test app.
    const buffer = await readFile(file);
    return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  } catch {
    // Not made yet: made below.
  }
  const pglite = await make();
  const dump = await pglite.dumpDataDir('none');
  await pglite.close();
  const bytes = new Uint8Array(await dump.arrayBuffer());
  const partial = `${file}.${process.pid}`;
  await writeFile(partial, bytes);
  await rename(partial, file);
  return bytes;
}
