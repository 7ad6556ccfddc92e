import type { Em } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import { isValidOrgNumber } from './org-number.js';
import { RegistryEntry } from './registry-entry.entity.js';

/**
 * The organisation behind a Norwegian organisation number, if it may become a merchant: an active main entity.
 * Each other case is its own refusal, naming `field`, so the caller learns what to fix.
 */
export async function requireActiveMainEntity(em: Em, orgNumber: string, field: string): Promise<RegistryEntry> {
  if (!isValidOrgNumber(orgNumber)) {
    throw new AppError('ORG_NUMBER_MALFORMED', `${orgNumber} is not a valid Norwegian organisation number`, [
      { name: field, reason: 'Must be 9 digits with a valid MOD11 check digit' },
    ]);
  }
  const entry = await em.findOne(RegistryEntry, { orgNumber });
  if (!entry) {
    throw new AppError('ORG_NUMBER_NOT_FOUND', `${orgNumber} is not in the business registry`, [
      { name: field, reason: 'Unknown to the business registry' },
    ]);
  }
  if (entry.kind === 'sub') {
    throw new AppError('ORG_NUMBER_SUB_ENTITY', `${orgNumber} is a sub entity of ${entry.parentOrgNumber}; use the main entity`, [
      { name: field, reason: `A sub entity (underenhet) of ${entry.parentOrgNumber}; a main entity is required` },
    ]);
  }
  if (entry.status !== 'active') {
    const why = entry.status === 'deleted' ? 'is deleted from' : 'is bankrupt or being wound up according to';
    throw new AppError('ORG_NUMBER_NOT_ACTIVE', `${orgNumber} ${why} the business registry`, [
      { name: field, reason: 'Not active in the business registry' },
    ]);
  }
  return entry;
}
