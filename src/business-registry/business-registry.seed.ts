import type { Em } from '../platform/db/orm.js';
import { RegistryEntry } from './registry-entry.entity.js';

/** The test environment's registry (TEST-ENVIRONMENT.md): fixed numbers that exercise every answer. */
export const testRegistry: readonly Omit<RegistryEntry, 'source' | 'lastImportId'>[] = [
  { orgNumber: '920000002', name: 'Testbutikk AS', kind: 'main', status: 'active', parentOrgNumber: null },
  { orgNumber: '920000010', name: 'Prøvehandel AS', kind: 'main', status: 'active', parentOrgNumber: null },
  { orgNumber: '920000088', name: 'PSP-kunde AS', kind: 'main', status: 'active', parentOrgNumber: null },
  { orgNumber: '920000029', name: 'Nytt Firma AS', kind: 'main', status: 'active', parentOrgNumber: null },
  { orgNumber: '920000037', name: 'Ny Kafé AS', kind: 'main', status: 'active', parentOrgNumber: null },
  { orgNumber: '920000045', name: 'Nytt Firma AS avd. Bergen', kind: 'sub', status: 'active', parentOrgNumber: '920000029' },
  { orgNumber: '920000053', name: 'Nedlagt AS', kind: 'main', status: 'deleted', parentOrgNumber: null },
];

export async function seedBusinessRegistry(em: Em): Promise<void> {
  for (const entry of testRegistry) await em.upsert(RegistryEntry, { ...entry, source: 'fixed', lastImportId: null });
}
