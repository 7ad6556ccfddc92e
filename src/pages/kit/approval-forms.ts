import { escapeHtml } from './html.js';
import { consentScopes } from './consent-scopes.js';

export interface ApprovalForms {
  /** Where the approve and reject forms post; each page kind (ePayment, PSP, QR) has its own. */
  approveAction: string;
  rejectAction: string;
  merchantName: string;
  /** Prefilled when the merchant named the customer. */
  phoneNumber: string | null;
  profileScope: string | null;
  /** Fields of the page's own before the consent (Express: the address and shipping chosen). */
  extra?: string;
  /** False: only the reject form (Express before the user is known: the page asks who first). */
  approvable?: boolean;
}

/** Approve as a test user by phone number (with consent to the asked profile scopes), or reject. */
export function approvalForms(forms: ApprovalForms): string {
  const approve =
    forms.approvable === false
      ? ''
      : `<form method="post" action="${escapeHtml(forms.approveAction)}" class="approve">
  <label for="phoneNumber">Your phone number (test user)</label>
  <input id="phoneNumber" name="phoneNumber" type="tel" inputmode="numeric" autocomplete="tel" required
    aria-describedby="phoneNumber-hint" value="${escapeHtml(forms.phoneNumber ?? '')}" placeholder="91234567">
  <p class="hint" id="phoneNumber-hint">Test users: 91234567 or 98765432.</p>
  ${forms.extra ?? ''}
  ${consentScopes(forms.merchantName, forms.profileScope)}
  <button type="submit" name="action" value="approve">Approve</button>
</form>`;
  return `<div class="choices" data-awaits-user>
${approve}
<form method="post" action="${escapeHtml(forms.rejectAction)}" class="reject">
  <button type="submit" class="secondary">Reject</button>
</form>
</div>`;
}
