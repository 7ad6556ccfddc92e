import { randomUUID } from 'node:crypto';
import type { Em } from '../platform/db/orm.js';
import type { RegistryRecord } from './enhetsregisteret-format.js';
import { isValidOrgNumber } from './org-number.js';
import type { RegistryEntityKind } from './registry-entry.entity.js';

export interface RegistryImportResult {
  importId: string;
  kind: RegistryEntityKind;
  /** Rows written (new or changed or seen again). */
  imported: number;
  /**
   * Records left out: a malformed number, a sub entity whose main entity the registry does not have (import the main
   * entities first), or one of the test environment's fixed entries.
   */
  skipped: number;
  /** A full import only: imported entries of this kind the file no longer lists, now deleted. */
  markedDeleted: number;
}

const BATCH = 500;

/**
 * Writes the records of one bulk file into the registry, in batches: idempotent (a second run of the same file
 * changes nothing but the import id). The test environment's fixed entries are never changed. With `full`, the file
 * is the whole register of its kind, so imported entries of that kind it did not list are marked deleted: an
 * organisation gone from the register can no longer become a merchant.
 */
export async function importRegistry(
  em: Em,
  records: AsyncIterable<RegistryRecord>,
  options: { kind: RegistryEntityKind; full: boolean },
): Promise<RegistryImportResult> {
  const importId = randomUUID();
  let imported = 0;
  let skipped = 0;
  // One row per number in a statement (PostgreSQL refuses to update a row twice in one upsert): the later wins.
  let batch = new Map<string, RegistryRecord>();
  const flush = async () => {
    if (batch.size === 0) return;
    const written = await writeBatch(em, [...batch.values()], importId);
    imported += written;
    skipped += batch.size - written;
    batch = new Map();
  };
  for await (const record of records) {
    if (!isValidOrgNumber(record.orgNumber) || record.name === '' || record.kind !== options.kind) {
      skipped++;
      continue;
    }
    if (batch.has(record.orgNumber)) skipped++;
    batch.set(record.orgNumber, record);
    if (batch.size >= BATCH) await flush();
  }
  await flush();
  let markedDeleted = 0;
  if (options.full) {
    const rows = await em.execute<{ org_number: string }[]>(
      `update business_registry_entry set status = 'deleted'
       where source = 'import' and kind = ? and status <> 'deleted' and last_import_id is distinct from ?
       returning org_number`,
      [options.kind, importId],
    );
    markedDeleted = rows.length;
  }
  return { importId, kind: options.kind, imported, skipped, markedDeleted };
}

/** One statement per batch; a sub entity whose main entity is unknown is left out (the parent is a foreign key). */
async function writeBatch(em: Em, batch: readonly RegistryRecord[], importId: string): Promise<number> {
  const rows = await em.execute<{ org_number: string }[]>(
    `insert into business_registry_entry (org_number, name, kind, status, parent_org_number, source, last_import_id)
     select r.org_number, r.name, r.kind, r.status, r.parent_org_number, 'import', ?::uuid
     from jsonb_to_recordset(?::jsonb) as r(org_number text, name text, kind text, status text, parent_org_number text)
     where r.parent_org_number is null or exists (select 1 from business_registry_entry p where p.org_number = r.parent_org_number)
     on conflict (org_number) do update set
       name = excluded.name, kind = excluded.kind, status = excluded.status,
       parent_org_number = excluded.parent_org_number, last_import_id = excluded.last_import_id
     where business_registry_entry.source = 'import'
     returning org_number`,
    [
      importId,
      JSON.stringify(
        batch.map((r) => ({ org_number: r.orgNumber, name: r.name, kind: r.kind, status: r.status, parent_org_number: r.parentOrgNumber })),
      ),
    ],
  );
  return rows.length;
}
