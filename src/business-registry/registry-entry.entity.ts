import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export type RegistryEntityKind = 'main' | 'sub';
export type RegistryStatus = 'active' | 'deleted';

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
  },
});
export type RegistryEntry = InferEntity<typeof RegistryEntry>;
