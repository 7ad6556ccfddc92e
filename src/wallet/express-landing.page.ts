import { escapeHtml } from '../pages/kit/html.js';
import { formatAmount } from '../pages/kit/money-format.js';
import type { ShippingDetails, ShippingGroup } from '../payments/express-shipping.js';
import type { PaymentAddress } from '../user-profiles/user-details.js';
import type { ExpressOffer } from './express-landing.service.js';

/**
 * The Express parts of the landing page (FACTS §14.1), in people's words: who is paying (the test user's phone
 * number), where to deliver (the user's addresses, or one typed), the merchant's shipping groups and options for that
 * address (brand, kind, name, price, the default chosen), and the total with shipping. Without script: choosing an
 * address is a GET of the page for it; the option travels with the approve form.
 */

const TYPE_WORDS: Record<ShippingGroup['type'], string> = {
  HOME_DELIVERY: 'Home delivery',
  PICKUP_POINT: 'Pickup point',
  MAILBOX: 'Mailbox delivery',
  IN_STORE: 'Pick up in store',
  OTHER: 'Delivery',
};

const BRAND_WORDS: Record<ShippingGroup['brand'], string> = {
  BRING: 'Bring',
  DHL: 'DHL',
  FEDEX: 'FedEx',
  GLS: 'GLS',
  HELTHJEM: 'Helthjem',
  INSTABOX: 'Instabox',
  MATKAHUOLTO: 'Matkahuolto',
  PORTERBUDDY: 'Porterbuddy',
  POSTEN: 'Posten',
  POSTI: 'Posti',
  POSTNORD: 'PostNord',
  OTHER: '',
};

export function addressWords(address: PaymentAddress): string {
  return [address.addressLine1, address.addressLine2, `${address.postCode} ${address.city}`, address.country].filter(Boolean).join(', ');
}

/** Before the approve form: who pays and where to deliver (its own GET form), and why nothing ships there if so. */
export function expressAddressSection(token: string, offer: ExpressOffer): string {
  const hidden = `<input type="hidden" name="token" value="${escapeHtml(token)}">`;
  if (!offer.user) {
    return `<section class="express" data-testid="express-user" aria-labelledby="express-heading">
  <h2 id="express-heading">Delivery</h2>
  ${offer.userMessage ? `<p class="message error" role="alert">${escapeHtml(offer.userMessage)}</p>` : ''}
  <form method="get" action="/wallet/landing">
    ${hidden}
    <label for="express-phone">Your phone number (test user)</label>
    <input id="express-phone" name="phoneNumber" type="tel" inputmode="numeric" autocomplete="tel" required placeholder="91234567">
    <p class="hint">Test users: 91234567 or 98765432. Your addresses are shown next.</p>
    <button type="submit">Continue</button>
  </form>
</section>`;
  }
  const radios = offer.user.addresses
    .map(
      (address, i) =>
        `<label class="check"><input type="radio" name="address" value="${i}"${offer.pick === String(i) ? ' checked' : ''}> ${escapeHtml(addressWords(address))}</label>`,
    )
    .join('\n    ');
  const typed = (name: keyof PaymentAddress, label: string, attributes = '') =>
    `<label for="typed-${name}">${label}</label><input id="typed-${name}" name="${name}" type="text" ${attributes} value="${escapeHtml(offer.typed[name] ?? '')}">`;
  return `<section class="express" data-testid="express-address" aria-labelledby="express-heading">
  <h2 id="express-heading">Deliver to</h2>
  <form method="get" action="/wallet/landing" class="address">
    ${hidden}
    <input type="hidden" name="phoneNumber" value="${escapeHtml(offer.user.phoneNumber)}">
    <fieldset class="consent">
    <legend>Your addresses</legend>
    ${radios}
    <label class="check"><input type="radio" name="address" value="other"${offer.pick === 'other' ? ' checked' : ''}> Another address</label>
    <div class="typed-address">
      ${typed('addressLine1', 'Street address', 'autocomplete="address-line1"')}
      ${typed('addressLine2', 'Address line 2 (optional)', 'autocomplete="address-line2"')}
      ${typed('postCode', 'Postcode', 'autocomplete="postal-code" inputmode="numeric"')}
      ${typed('city', 'City', 'autocomplete="address-level2"')}
      ${typed('country', 'Country (two letters, e.g. NO)', 'autocomplete="country" maxlength="2"')}
    </div>
    </fieldset>
    <button type="submit" class="secondary">Use this address</button>
  </form>
  ${offer.cannotShip ? `<p class="message error" role="alert" data-testid="cannot-ship">${escapeHtml(offer.cannotShip)}</p>` : ''}
</section>`;
}

/** Inside the approve form: the address chosen (hidden) and the shipping options, the default chosen, and the total. */
export function expressShippingFields(offer: ExpressOffer, currency: string): string {
  const hidden = (name: string, value: string | null | undefined) =>
    `<input type="hidden" name="${name}" value="${escapeHtml(value ?? '')}">`;
  const address = [
    hidden('address', offer.pick),
    ...(['addressLine1', 'addressLine2', 'postCode', 'city', 'country'] as const).map((n) => hidden(n, offer.typed[n])),
  ].join('');
  if (!offer.groups) return address;
  const groups = offer.groups
    .map((group) => {
      const heading = [BRAND_WORDS[group.brand], TYPE_WORDS[group.type]].filter(Boolean).join(' · ');
      const options = group.options
        .map((option) => {
          const notes = [option.meta, option.estimatedDelivery].filter(Boolean).map((n) => `<span class="hint">${escapeHtml(n!)}</span>`);
          const total = formatAmount(offer.base + option.amount.value, currency);
          return `<label class="check"><input type="radio" name="shippingOptionId" value="${escapeHtml(option.id)}" data-total="${escapeHtml(total)}" required${offer.chosen?.id === option.id ? ' checked' : ''}> <span>${escapeHtml(option.name)}: <strong>${escapeHtml(option.amount.value === 0 ? 'Free' : formatAmount(option.amount.value, currency))}</strong>${notes.length ? `<br>${notes.join(' ')}` : ''}</span></label>`;
        })
        .join('\n');
      return `<p class="shipping-group" data-testid="shipping-group">${escapeHtml(heading)}</p>\n${options}`;
    })
    .join('\n');
  return `${address}<fieldset class="consent" data-testid="shipping">
  <legend>Shipping</legend>
  ${groups}
</fieldset>
<p class="total" data-testid="total" aria-live="polite">Total with shipping: <strong data-total-with-shipping>${escapeHtml(formatAmount(offer.total, currency))}</strong></p>`;
}

/** After approval: where it goes and how, in the summary's words. */
export function expressChosen(details: ShippingDetails, currency: string): string {
  return `<section class="consent shared" data-testid="shipping-details" aria-labelledby="shipping-heading">
  <h2 id="shipping-heading">Delivery</h2>
  <p>${escapeHtml(details.shippingOptionName)} (${escapeHtml(details.shippingCost === 0 ? 'free' : formatAmount(details.shippingCost, currency))}) to ${escapeHtml(addressWords(details.address))}</p>
</section>`;
}
