import { AppError } from '../errors/app-error.js';

/**
 * What a request may see and touch, settled once by the request front. Every tenant-owned read and write goes
 * through `scoped(ctx)` (tenancy.ts), so a new domain gets the filter from the context instead of writing its own.
 */
export interface TenancyScope {
  /**
   * The sales unit the request acts for, checked to be one the principal covers. A request acting as the principal
   * as a whole names none: reading this then is a 400 naming `Merchant-Serial-Number`, so the header is asked for
   * exactly where an operation (or a graph field) needs one sales unit.
   */
  readonly msn: string;
  /** The sales unit the request names, or undefined when it acts as the principal as a whole. */
  readonly actingFor: string | undefined;
  /**
   * Whether the caller may read the merchant's own data (merchant details, contracts): the merchant itself, or
   * a partner the merchant consented to share it with. Acting for the sales unit does not need it.
   */
  readonly readsMerchantData: boolean;
}

/** The scope of a request acting for one sales unit the principal covers. */
export function salesUnitScope(msn: string, readsMerchantData: boolean): TenancyScope {
  return { msn, actingFor: msn, readsMerchantData };
}

/** The scope of a request acting as the principal as a whole (a partner's or PSP's own operations, the graph without an MSN). */
export function principalScope(): TenancyScope {
  return {
    get msn(): string {
      throw AppError.validation([
        { name: 'Merchant-Serial-Number', reason: 'The header is required: this operation acts for one sales unit' },
      ]);
    },
    actingFor: undefined,
    readsMerchantData: false,
  };
}
