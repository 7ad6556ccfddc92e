import { createHash } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { modules } from '../../src/modules.js';
import { openDatabase } from '../../src/platform/db/orm.js';

/**
 * A dump of an in-memory PGlite with every migration applied, made once per set of migrations (their names and
 * code) and kept in the temp directory, so each test app loads it instead of creating a cluster and migrating it.
 * Workers that race to make it each write their own file and rename it into place: the last one wins, all equal.
 */
export async function migratedPgliteDump(): Promise<Blob> {
  return dumpLike(await migratedDumpBytes());
}

/**
 * What PGlite reads of the dump (its bytes and type) as own properties: MikroORM copies its driver options deeply,
 * and a copied Blob has lost what its methods need ("Illegal invocation"); functions are copied as they are.
 */
function dumpLike(bytes: Uint8Array): Blob {
  const dump = { type: 'application/x-tar', size: bytes.byteLength, arrayBuffer: async () => bytes.slice().buffer };
  return dump as unknown as Blob;
}

async function migratedDumpBytes(): Promise<Uint8Array> {
  const migrations = modules.flatMap((m) => m.migrations ?? []);
  const key = createHash('sha256')
    .update(migrations.map((m) => `${m.name}\n${String(m.class)}`).join('\n'))
    .digest('hex')
    .slice(0, 16);
  const file = join(tmpdir(), `paygraph-pglite-migrated-${key}.tar`);
  try {
    return new Uint8Array(await readFile(file));
  } catch {
    // Not made yet: made below.
  }
  const pglite = await PGlite.create();
  const orm = await openDatabase({
    dataDir: 'memory://',
    entities: modules.flatMap((m) => m.entities ?? []),
    migrations,
    pglite: { pglite },
  });
  await orm.close();
  const dump = await pglite.dumpDataDir('none');
  await pglite.close();
  const bytes = new Uint8Array(await dump.arrayBuffer());
  const partial = `${file}.${process.pid}`;
  await writeFile(partial, bytes);
  await rename(partial, file);
  return bytes;
}
