import type { DomainModule } from '../platform/module.js';
import { seedBusinessRegistry } from '../business-registry/business-registry.seed.js';
import { Migration20261123100000BusinessRegistry } from '../business-registry/migrations/Migration20261123100000BusinessRegistry.js';
import { Migration20261126100100RegistryImport } from '../business-registry/migrations/Migration20261126100100RegistryImport.js';
import { RegistryEntry } from '../business-registry/registry-entry.entity.js';
import '../business-registry/business-registry.errors.js';

/** The business registry: which organisations exist, and whether they may become merchants. */
export const businessRegistryModule: DomainModule = {
  name: 'business-registry',
  entities: [RegistryEntry],
  migrations: [
    { name: 'Migration20261123100000BusinessRegistry', class: Migration20261123100000BusinessRegistry },
    { name: 'Migration20261126100100RegistryImport', class: Migration20261126100100RegistryImport },
  ],
  seedTestEnvironment: (em) => seedBusinessRegistry(em),
};
