import type { DomainModule } from '../platform/module.js';
import { Migration20261126100000SecretRotation } from './migrations/Migration20261126100000SecretRotation.js';
import './operator.errors.js';

/** The back office: onboarding partners, merchants, sales units, PSPs and their API clients (command line and graph). */
export const operatorModule: DomainModule = {
  name: 'operator',
  migrations: [{ name: 'Migration20261126100000SecretRotation', class: Migration20261126100000SecretRotation }],
};
