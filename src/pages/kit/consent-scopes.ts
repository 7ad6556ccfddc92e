import { escapeHtml } from './html.js';

/** What each profile scope word shares, in the words a wallet user reads. */
const SCOPE_LABELS: Record<string, string> = {
  name: 'Your name',
  address: 'Your address',
  email: 'Your email address',
  phoneNumber: 'Your phone number',
  birthDate: 'Your date of birth',
  nin: 'Your national identity number',
  accountNumbers: 'Your bank account numbers',
};

export function scopeWords(scope: string | null): string[] {
  return (scope ?? '').split(/\s+/).filter((word) => word.length > 0);
}

/**
 * The consent part of an approve form: what the merchant asks to see, and a required checkbox the user ticks to
 * share it. Empty when the payment asks for no profile.
 */
export function consentScopes(merchantName: string, scope: string | null): string {
  const words = scopeWords(scope);
  if (words.length === 0) return '';
  const items = scopeItems(words);
  return `<fieldset class="consent">
  <legend>${escapeHtml(merchantName)} asks to see</legend>
  <ul class="scopes" data-testid="consent-scopes">${items}</ul>
  <label class="check"><input type="checkbox" name="consent" value="yes" required> I agree to share this with ${escapeHtml(merchantName)}</label>
</fieldset>`;
}

/** After an approval with consent: what the user now shares with the merchant. */
export function sharedScopes(merchantName: string, scope: string): string {
  const words = scopeWords(scope);
  if (words.length === 0) return '';
  return `<section class="consent shared" aria-labelledby="shared-heading">
  <h2 id="shared-heading">You share with ${escapeHtml(merchantName)}</h2>
  <ul class="scopes" data-testid="shared-scopes">${scopeItems(words)}</ul>
</section>`;
}

function scopeItems(words: readonly string[]): string {
  return words.map((word) => `<li>${escapeHtml(SCOPE_LABELS[word] ?? word)}</li>`).join('');
}
