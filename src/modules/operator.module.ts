import type { DomainModule } from '../platform/module.js';
import { operatorResolvers } from '../../resolvers/operator.js';
import { Migration20261126100000SecretRotation } from '../operator/migrations/Migration20261126100000SecretRotation.js';
import { Migration20261126110000OperatorClient } from '../operator/migrations/Migration20261126110000OperatorClient.js';
import { seedOperatorClient } from '../operator/operator.seed.js';
import '../operator/operator.errors.js';

/** The back office: onboarding partners, merchants, sales units, PSPs and their API clients (command line and graph). */
export const operatorModule: DomainModule = {
  name: 'operator',
  migrations: [
    { name: 'Migration20261126100000SecretRotation', class: Migration20261126100000SecretRotation },
    { name: 'Migration20261126110000OperatorClient', class: Migration20261126110000OperatorClient },
  ],
  resolvers: [operatorResolvers],
  seedTestEnvironment: (em, now) => seedOperatorClient(em, now),
};
