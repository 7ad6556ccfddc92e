import { defineErrors, type CatalogueEntry } from '../platform/errors/catalogue.js';

/** Refusals of the userinfo API (FACTS §10); the body is the `UserinfoError` with `status` as a string. */
export const userProfileErrors = defineErrors('user-profiles', {
  /** No consent of this user to the caller's sales unit: unknown sub, another merchant's user, never consented. */
  USER_INFO_NOT_FOUND: { status: 404, title: 'Not Found' },
  /** The user consented, but more than 168 hours ago: the data may no longer be fetched. */
  USER_CONSENT_EXPIRED: { status: 403, title: 'Forbidden' },
});

declare module '../platform/errors/catalogue.js' {
  interface ErrorCatalogue extends Record<keyof typeof userProfileErrors, CatalogueEntry> {}
}
