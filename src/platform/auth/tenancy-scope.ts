/**
 * What a request may see and touch, settled once when its context is built. Every tenant-owned read and write
 * goes through `scoped(ctx)` (tenancy.ts), so a new domain gets the filter from the context instead of writing its own.
 */
export interface TenancyScope {
  /** The sales unit the request acts for, checked to be one the principal may act for. */
  readonly msn: string;
  /**
   * Whether the caller may read the merchant's own data (merchant details, contracts): the merchant itself, or
   * a partner the merchant consented to share it with. Acting for the sales unit does not need it.
   */
  readonly readsMerchantData: boolean;
}
