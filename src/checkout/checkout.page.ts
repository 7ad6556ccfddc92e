import type { PageAssets } from '../pages/kit/assets.js';
import { escapeHtml } from '../pages/kit/html.js';
import { formatAmount } from '../pages/kit/money-format.js';
import { liveStatePage } from '../pages/kit/live-state.route.js';
import { outcomeHeading, paymentSummary, walletDocument, walletMessage } from '../pages/kit/wallet-document.js';
import { CHECKOUT_PAGE_STATE_PATH, checkoutTotal, payableNow } from './checkout-page.live-state.js';
import { selectedOption } from './checkout-shipping.service.js';
import type { CheckoutPage } from './checkout-buyer.service.js';
import { priceVersion, type BuyerForm, type FieldErrors } from './checkout-buyer.rules.js';
import type { LogisticsOption } from './checkout-session.types.js';

export interface PageNotice {
  kind: 'ok' | 'error';
  text: string;
}

/**
 * The checkout page a buyer opens at `checkoutFrontendUrl`: the order, contact and address (prefilled from
 * `prefillCustomer`), the shipping options, the terms, the custom consent, and pay (as a test user) or cancel.
 * Server-rendered forms, so it works without any script; built from the page kit's layout and styles.
 */
export function checkoutPageHtml(
  assets: PageAssets,
  page: CheckoutPage | undefined,
  notice?: PageNotice,
  input?: { form?: BuyerForm; fieldErrors?: FieldErrors },
): string {
  if (!page) {
    return walletDocument(assets, {
      title: 'Checkout not found',
      main: walletMessage({ kind: 'error', text: notice?.text ?? 'This checkout link is not valid.' }),
    });
  }
  const { session } = page;
  // The headline is what Pay charges: with the shipping chosen or selected, or the order "plus shipping" before
  // any option is offered.
  const payable = page.live.awaitsUser ? payableNow(session, input?.form?.shippingOptionId || undefined) : undefined;
  const summary = paymentSummary({
    merchantName: page.merchantName,
    amount: payable?.amount ?? checkoutTotal(session),
    currency: session.currency,
    description: session.paymentDescription,
    state: page.live.state,
    ...(payable?.plusShipping ? { amountNote: 'plus shipping, chosen once you give your address' } : {}),
    ...(page.live.awaitsUser && shippingToChoose(page, input?.form?.shippingOptionId || undefined) ? { amountFollowsShipping: true } : {}),
  });
  const main = [
    summary,
    walletMessage(notice),
    orderSummary(page, input?.form?.shippingOptionId),
    page.live.awaitsUser ? `${buyerForms(page, input?.form, input?.fieldErrors ?? {})}${backLink(page)}` : backLink(page),
  ].join('\n');
  return walletDocument(assets, {
    title: outcomeHeading(page.live.state, 'Checkout'),
    main,
    live: liveStatePage(CHECKOUT_PAGE_STATE_PATH, page.live),
  });
}

/**
 * What is being bought and what it costs, shown before the buyer pays and adding up to its total: the order lines
 * (where the merchant asks for them, `showOrderSummary`; else the order as one line, by its description), a line for
 * what the lines leave out of the order's amount, the shipping (chosen, or the option that is selected: the page's
 * script follows another choice, and without script each option says its total), and the total the buyer pays.
 */
function orderSummary(page: CheckoutPage, chosenId: string | undefined): string {
  const { session } = page;
  const money = (amount: number) => escapeHtml(formatAmount(amount, session.currency));
  const summary = session.request.transaction.orderSummary;
  const lines = summary && session.request.configuration?.showOrderSummary ? summary.orderLines : [];
  const itemised = lines.reduce((sum, line) => sum + line.totalAmount, 0);
  const row = (label: string, amount: string, attributes = '') => `<tr${attributes}><td>${label}</td><td class="num">${amount}</td></tr>`;
  const rows =
    lines.length > 0
      ? lines.map((line) =>
          row(`${escapeHtml(line.name)}${line.unitInfo ? ` × ${escapeHtml(line.unitInfo.quantity)}` : ''}`, money(line.totalAmount)),
        )
      : [row(escapeHtml(session.paymentDescription || 'Order'), money(session.amount), ' data-testid="order-amount"')];
  if (lines.length > 0 && itemised !== session.amount) rows.push(row('Rest of the order', money(session.amount - itemised)));
  const shipping = chosenShipping(page) ?? shippingToChoose(page, chosenId);
  let total = `<tr class="total"><th scope="row">Total</th><td class="num" data-testid="total">${money(session.amount)}</td></tr>`;
  if (shipping) {
    rows.push(
      row(
        `Shipping: <span data-shipping-name>${escapeHtml(shipping.name)}</span>`,
        `<span data-shipping-amount>${money(shipping.amount)}</span>`,
        ' data-testid="chosen-shipping"',
      ),
    );
    total = `<tr class="total"><th scope="row">Total</th><td class="num" data-testid="total" data-total-with-shipping>${money(session.amount + shipping.amount)}</td></tr>`;
  } else if (page.live.awaitsUser && page.asksForShipping) {
    rows.push(row('Shipping: chosen once you give your address', '—', ' data-testid="shipping-to-choose"'));
    total = `<tr class="total"><th scope="row">Total before shipping</th><td class="num" data-testid="total">${money(session.amount)}</td></tr>`;
  }
  return `<section class="order" aria-labelledby="order-heading"><h2 id="order-heading">Your order</h2>
<table data-testid="order-summary"><thead><tr><th scope="col">Item</th><th scope="col" class="num">Amount</th></tr></thead><tbody>${rows.join('')}</tbody>
<tfoot>${total}</tfoot></table></section>`;
}

/** The shipping the buyer chose, by the name the option was offered under, and its price. */
function chosenShipping(page: CheckoutPage): { name: string; amount: number } | undefined {
  const details = page.session.shippingDetails;
  if (!details?.shippingMethodId || !details.amount) return undefined;
  const option = page.offer?.options.find((o) => o.id === details.shippingMethodId);
  return { name: option ? optionName(option) : details.shippingMethodId, amount: details.amount.value };
}

/** While the buyer chooses: the selected option, by its name, and its price. */
function shippingToChoose(page: CheckoutPage, chosenId: string | undefined): { name: string; amount: number } | undefined {
  if (!page.live.awaitsUser || !page.asksForShipping || page.session.state === 'PaymentInitiated') return undefined;
  const option = selectedOption(page.offer, chosenId);
  return option && { name: optionName(option), amount: option.amount?.value ?? 0 };
}

/** The way back to the merchant: hidden while the buyer may still pay, for the page's script to show once it ended. */
function backLink(page: CheckoutPage): string {
  const returnUrl = page.session.request.merchantInfo.returnUrl;
  if (!/^https?:\/\//i.test(returnUrl)) return '';
  return `<p class="back" data-back${page.live.awaitsUser ? ' hidden' : ''}><a href="${escapeHtml(returnUrl)}">Back to ${escapeHtml(page.merchantName)}</a></p>`;
}

function buyerForms(page: CheckoutPage, form: BuyerForm | undefined, errors: FieldErrors): string {
  const { session } = page;
  const t = encodeURIComponent(page.token);
  const elements = session.request.configuration?.elements ?? 'Full';
  const initiated = session.state === 'PaymentInitiated';
  const prefill = session.request.prefillCustomer ?? {};
  const address = session.buyerAddress;
  const value = (name: keyof BuyerForm, fallback?: string | null) => form?.[name] ?? fallback ?? '';
  const parts: string[] = [];
  if (!initiated && elements !== 'PaymentOnly') {
    parts.push(`<fieldset class="group"><legend>Contact details</legend>
${field('firstName', 'First name', 'text', value('firstName', prefill.firstName), errors, 'given-name')}
${field('lastName', 'Last name', 'text', value('lastName', prefill.lastName), errors, 'family-name')}
${field('email', 'Email', 'email', value('email', prefill.email), errors, 'email')}
${field('phoneNumber', 'Phone number', 'tel', value('phoneNumber', prefill.phoneNumber), errors, 'tel')}
</fieldset>`);
  }
  if (!initiated && elements === 'Full') {
    parts.push(`<fieldset class="group"><legend>Address</legend>
${field('streetAddress', 'Street address', 'text', value('streetAddress', address?.streetAddress ?? prefill.streetAddress), errors, 'street-address')}
${field('postalCode', 'Postal code', 'text', value('postalCode', address?.postalCode ?? prefill.postalCode), errors, 'postal-code')}
${field('city', 'City', 'text', value('city', address?.city ?? prefill.city), errors, 'address-level2')}
${field('country', 'Country (two letters)', 'text', value('country', address?.country ?? prefill.country ?? 'NO'), errors, 'country')}
${page.asksForShipping ? `<button type="submit" class="secondary" formaction="/checkout/page/shipping?token=${t}" formnovalidate>Find shipping options</button>` : ''}
</fieldset>`);
    if (page.asksForShipping) parts.push(shippingChoices(page, value('shippingOptionId'), errors));
  }
  const terms = session.request.merchantInfo.termsAndConditionsUrl;
  if (!initiated && terms && /^https?:\/\//i.test(terms)) {
    parts.push(
      `<p class="terms">By paying you accept <a href="${escapeHtml(terms)}" target="_blank" rel="noopener">${escapeHtml(page.merchantName)}’s terms and conditions</a>.</p>`,
    );
  }
  const consent = session.request.configuration?.customConsent;
  if (!initiated && consent) {
    parts.push(`<div class="consent-box">
<label class="check" for="customConsent"><input type="checkbox" id="customConsent" name="customConsent" value="yes"${form?.customConsent === 'yes' ? ' checked' : ''}${described('customConsent', errors)}>
<span>${consentText(consent.text)}${consent.required ? ' (required)' : ''}</span></label>
${fieldError('customConsent', errors)}</div>`);
  }
  const walletPhone = value('walletPhone', form ? undefined : (prefill.phoneNumber ?? ''));
  parts.push(`<fieldset class="group"><legend>Pay with the test wallet</legend>
${field('walletPhone', 'Your wallet phone number (test user)', 'tel', walletPhone, errors, 'tel', 'Test users: 91234567 or 98765432.')}
<p class="hint" id="pay-total">${payTotalText(page, value('shippingOptionId'))}</p>
<button type="submit" data-testid="pay" aria-describedby="pay-total">Pay</button>
</fieldset>`);
  // The prices this page shows: Pay is refused if the merchant changed them since (checkout-buyer.rules.ts).
  return `<div data-awaits-user><form method="post" action="/checkout/page/pay?token=${t}" class="checkout" novalidate>
<input type="hidden" name="priceVersion" value="${escapeHtml(priceVersion(session))}">
${parts.join('\n')}
</form>
<form method="post" action="/checkout/page/cancel?token=${t}" class="cancel">
<button type="submit" class="secondary">Cancel</button>
</form></div>`;
}

/** What the buyer pays, as HTML: the order, plus the shipping chosen or selected (followed by the page's script). */
function payTotalText(page: CheckoutPage, chosenId: string): string {
  const currency = page.session.currency;
  const money = (amount: number) => escapeHtml(formatAmount(amount, currency));
  const order = money(page.session.amount);
  const shipping = chosenShipping(page) ?? shippingToChoose(page, chosenId || undefined);
  if (shipping) {
    return `You pay <strong data-total-with-shipping>${money(page.session.amount + shipping.amount)}</strong>: the order ${order} and shipping <span data-shipping-amount>${money(shipping.amount)}</span>.`;
  }
  return page.asksForShipping ? `You pay the order ${order}, plus the shipping you choose.` : `You pay <strong>${order}</strong>.`;
}

function shippingChoices(page: CheckoutPage, chosenId: string, errors: FieldErrors): string {
  if (!page.offer) {
    return `<fieldset class="group" data-testid="shipping"><legend>Shipping</legend><p class="hint">Enter your address and choose “Find shipping options”.</p></fieldset>`;
  }
  if (page.offer.options.length === 0) {
    return `<fieldset class="group" data-testid="shipping"><legend>Shipping</legend>${walletMessage({ kind: 'error', text: 'No shipping options are available for this address, so the order cannot be paid. Check the address, or contact the shop.' })}</fieldset>`;
  }
  // The merchant's own options for this address came back empty or failed: its standard ones are offered instead.
  const fallback =
    page.offer.source === 'fixed' && page.session.request.logistics?.dynamicOptionsCallback
      ? `<p class="hint" data-testid="shipping-fallback">The shop sent no delivery options for this address, so its standard options are shown.</p>`
      : '';
  const selected = selectedOption(page.offer, chosenId || undefined);
  const radios = page.offer.options
    .map((option, i) => {
      const id = `shipping-${i}`;
      const price = option.amount?.value ?? 0;
      const money = (amount: number) => escapeHtml(formatAmount(amount, page.session.currency));
      // Each option says the total it makes, so a buyer without script sees it too; the script moves it to the table.
      const data = `data-total="${money(page.session.amount + price)}" data-shipping="${money(price)}" data-shipping-name="${escapeHtml(optionName(option))}"`;
      return `<label class="check option" for="${id}"><input type="radio" id="${id}" name="shippingOptionId" value="${escapeHtml(option.id)}" ${data}${option === selected ? ' checked' : ''}>
<span>${escapeHtml(optionName(option))} – ${money(price)} <span class="hint">(total ${money(page.session.amount + price)})</span>${option.description ? `<br><span class="hint">${escapeHtml(option.description)}</span>` : ''}</span></label>`;
    })
    .join('\n');
  return `<fieldset class="group" data-testid="shipping" data-source="${page.offer.source}"${errors.shippingOptionId ? ' aria-describedby="shippingOptionId-error"' : ''}><legend>Shipping</legend>
${fallback}${radios}
${fieldError('shippingOptionId', errors)}</fieldset>`;
}

function optionName(option: LogisticsOption): string {
  const brand = option.brand === 'OTHER' ? (option.title ?? 'Delivery') : option.brand.charAt(0) + option.brand.slice(1).toLowerCase();
  const type = option.customType ?? option.type?.replace(/_/g, ' ').toLowerCase();
  return type ? `${brand}, ${type}` : brand;
}

/** The consent text may hold one markdown link `[text](https://…)` (FACTS §8); everything else is text. */
function consentText(text: string): string {
  const link = /\[([^\]]+)\]\((https?:\/\/[^)\s]+)\)/.exec(text);
  if (!link) return escapeHtml(text);
  return `${escapeHtml(text.slice(0, link.index))}<a href="${escapeHtml(link[2]!)}" target="_blank" rel="noopener">${escapeHtml(link[1]!)}</a>${escapeHtml(text.slice(link.index + link[0].length))}`;
}

function described(name: keyof BuyerForm, errors: FieldErrors, hint = false): string {
  const ids = [...(hint ? [`${name}-hint`] : []), ...(errors[name] ? [`${name}-error`] : [])];
  return `${ids.length ? ` aria-describedby="${ids.join(' ')}"` : ''}${errors[name] ? ' aria-invalid="true"' : ''}`;
}

function fieldError(name: keyof BuyerForm, errors: FieldErrors): string {
  const messages = errors[name];
  return messages ? `<p class="field-error" id="${name}-error">${escapeHtml(messages.join('. '))}</p>` : '';
}

function field(
  name: keyof BuyerForm,
  label: string,
  type: string,
  value: string,
  errors: FieldErrors,
  autocomplete: string,
  hint?: string,
): string {
  return `<div class="field"><label for="${name}">${escapeHtml(label)}</label>
<input id="${name}" name="${name}" type="${type}" autocomplete="${autocomplete}" value="${escapeHtml(value)}"${described(name, errors, Boolean(hint))}>
${hint ? `<p class="hint" id="${name}-hint">${escapeHtml(hint)}</p>` : ''}${fieldError(name, errors)}</div>`;
}
