import { formatOfFile, kindOfFile, readRegistryFile, type RegistryFileFormat } from '../business-registry/enhetsregisteret-format.js';
import { importRegistry, type RegistryImportResult } from '../business-registry/registry-import.service.js';
import type { RegistryEntityKind } from '../business-registry/registry-entry.entity.js';
import type { OperatorCall } from './onboarding.service.js';
import { recordOperatorAction } from './operator-action.js';

/**
 * An operator imports one of Enhetsregisteret's bulk files. The rows go in batches (a full file has a million of
 * them, too many for one transaction; each batch is idempotent), and the import's event is recorded when it is done.
 */
export async function importRegistryFile(
  call: OperatorCall,
  input: { file: string; kind?: RegistryEntityKind; format?: RegistryFileFormat; full: boolean },
): Promise<RegistryImportResult> {
  const kind = input.kind ?? kindOfFile(input.file);
  const format = input.format ?? formatOfFile(input.file);
  const result = await importRegistry(call.em, readRegistryFile(input.file, kind, format), { kind, full: input.full });
  await call.em.transactional(async (em) => {
    recordOperatorAction(em, {
      actor: call.actor,
      name: 'business-registry.imported',
      subject: {
        importId: result.importId,
        kind,
        full: input.full,
        imported: String(result.imported),
        markedDeleted: String(result.markedDeleted),
      },
      at: call.now,
    });
  });
  return result;
}
