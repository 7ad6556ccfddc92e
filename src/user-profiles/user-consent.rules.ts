/** Consented data may be fetched for 168 hours after the payment the user approved (FACTS §10, "Time limit"). */
export const CONSENT_READABLE_MS = 168 * 60 * 60 * 1000;

/** Whether a consent still lets its sales unit read the user's claims: the one place the time limit is applied. */
export function isConsentReadable(consent: { expiresAt: Date }, now: Date): boolean {
  return now.getTime() < consent.expiresAt.getTime();
}

export function consentExpiry(consentedAt: Date): Date {
  return new Date(consentedAt.getTime() + CONSENT_READABLE_MS);
}

/** The scope words of several consents, once each, in the order first asked. */
export function unionOfScopes(scopes: readonly string[]): string {
  return [...new Set(scopes.flatMap((s) => s.split(' ').filter((w) => w !== '')))].join(' ');
}
