/**
 * The catalogue of expected failures. Each domain declares its own codes beside it (`<domain>.errors.ts`) with
 * `defineErrors`, which adds them to this registry and, through the `ErrorCatalogue` interface that each domain
 * augments, to the `ErrorCode` type: a typo in a code is a compile error, and a code stored with an idempotency
 * record can be turned back into its definition when the record is replayed.
 */
export interface CatalogueEntry {
  status: number;
  title: string;
  /** The public error code of the interface, where one exists (FACTS §1.4): the ePayment `ErrorCode`. */
  vippsCode?: string;
  /** The checkout API's `errorCode` (FACTS §8: `Session-00100`, ...), where the failure has one. */
  checkoutCode?: string;
  /** The PSP API's `errorCode` (FACTS §6: 21, 44, 99, 121–124), where the failure has one. */
  pspCode?: string;
  /** The failure depends on the state of the resource, so an idempotent retry must get the same answer. */
  replayable?: boolean;
  /**
   * The graph's code where its error enum has one code for several REST titles (the schema names one
   * IDEMPOTENCY_CONFLICT; REST distinguishes capture, refund and the rest, FACTS §1.4).
   */
  graphCode?: string;
}

/** Augmented by every `<domain>.errors.ts`: `declare module '.../catalogue.js' { interface ErrorCatalogue extends ... }`. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface ErrorCatalogue {}

export type ErrorCode = keyof ErrorCatalogue & string;

const registry = new Map<string, CatalogueEntry & { domain: string }>();

/** Registers a domain's codes; a code declared by two domains is a start-up failure, not a silent override. */
export function defineErrors<const T extends Record<string, CatalogueEntry>>(domain: string, entries: T): T {
  for (const [code, entry] of Object.entries(entries)) {
    const existing = registry.get(code);
    if (existing && existing.domain !== domain) throw new Error(`Error code ${code} is declared by ${existing.domain} and ${domain}`);
    registry.set(code, { ...entry, domain });
  }
  return entries;
}

/** Every declared ePayment `ErrorCode` with its title, by code, for the interface's OpenAPI document. */
export function declaredVippsCodes(): { code: string; title: string }[] {
  const byCode = new Map<string, string>();
  for (const entry of registry.values()) if (entry.vippsCode && !byCode.has(entry.vippsCode)) byCode.set(entry.vippsCode, entry.title);
  return [...byCode].map(([code, title]) => ({ code, title })).sort((a, b) => Number(a.code) - Number(b.code));
}

export function errorEntry(code: ErrorCode): CatalogueEntry {
  const entry = registry.get(code);
  if (!entry) throw new Error(`Error code ${code} is not declared: is its domain's errors file imported?`);
  return entry;
}
