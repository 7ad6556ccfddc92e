import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export type RegistryEntityKind = 'main' | 'sub';
export type RegistryStatus = 'active' | 'inactive' | 'deleted';
/** `fixed`: the test environment's entries, which no import changes; `import`: from Enhetsregisteret's files. */
export type RegistrySource = 'fixed' | 'import';

/** An organisation as the business registry knows it: a main entity (hovedenhet) or a sub entity (underenhet). */
export const RegistryEntry = defineEntity({
  name: 'RegistryEntry',
  tableName: 'business_registry_entry',
  properties: {
    orgNumber: p.string().primary(),
    name: p.string(),
    kind: p.string().$type<RegistryEntityKind>(),
    status: p.string().$type<RegistryStatus>(),
    /** The main entity a sub entity belongs to. */
    parentOrgNumber: p.string().nullable(),
    source: p.string().$type<RegistrySource>().default('import'),
    /** The import that last listed it; a full import marks the imported entries of its kind it did not list deleted. */
    lastImportId: p.uuid().nullable(),
  },
});
export type RegistryEntry = InferEntity<typeof RegistryEntry>;
