import type { Em } from '../db/orm.js';

/**
 * What tenancy needs to know of sales units: who owns one, and who else may act for it. The merchants domain
 * answers (`SalesUnitDirectory`); the platform only asks, so it names no domain.
 */
export interface SalesUnitAccess {
  /** The id of the merchant that owns the sales unit, or undefined when there is no such sales unit. */
  ownerOf(em: Em, msn: string): Promise<string | undefined>;
  /** The partner's connection to the sales unit, with whether the merchant consented to share its data. */
  partnerConnection(em: Em, partnerId: string, msn: string): Promise<{ merchantConsent: boolean } | undefined>;
  /** Whether the sales unit belongs to a merchant the PSP signed up. */
  isPspSalesUnit(em: Em, pspId: string, msn: string): Promise<boolean>;
}
