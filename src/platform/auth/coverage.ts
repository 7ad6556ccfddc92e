import type { Em } from '../db/orm.js';
import type { Principal } from './principal.js';

/** How a principal covers one sales unit: whose unit it is, and whether the principal may read that merchant's own data. */
export interface UnitCoverage {
  merchantId: string;
  /** The merchant itself, its PSP, or a partner the merchant consented to share its data with. */
  readsMerchantData: boolean;
}

/** A condition to put in a statement's `where`, with its parameters in order. */
export interface SqlCondition {
  sql: string;
  params: unknown[];
}

export interface CoverageNarrowing {
  /** Only the units whose merchant's own data the principal may read (a partner: with the merchant's consent). */
  readsMerchantData?: boolean;
  /** A principal acting for this sales unit (`Merchant-Serial-Number`) covers only the units of its merchant. */
  actingFor?: string;
}

/**
 * Which sales units a principal covers, and with which consent: one rule, asked both as a check of one unit (the
 * request front's scope, single reads) and as a SQL condition (lists), so a list and a single read cannot disagree.
 * The domain that knows sales units answers; it registers itself with the platform (`DomainModule.coverage`), so
 * the platform names no domain.
 */
export interface CoverageProvider {
  /** The id of the merchant that owns the sales unit, or undefined when there is no such sales unit. */
  ownerOf(em: Em, msn: string): Promise<string | undefined>;
  /** How the principal covers the sales unit; undefined when it does not. */
  coverageOf(em: Em, principal: Principal, msn: string): Promise<UnitCoverage | undefined>;
  /** The same rule as a condition on an SQL expression that names a sales unit's MSN (e.g. `su.msn`). */
  condition(principal: Principal, msnColumn: string, narrowing?: CoverageNarrowing): SqlCondition;
}
