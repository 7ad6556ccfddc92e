import type { PaygraphEnv } from '../config.js';
import { outboundUrlProblem } from '../platform/delivery/outbound-url.js';
import { AppError, type ErrorDetail } from '../platform/errors/app-error.js';
import type { CreatePaymentCommand } from './payment.commands.js';
import type { Currency } from './payment.entity.js';
import type { Shipping, ShippingGroup, ShippingOption } from './express-shipping.js';
import './express.errors.js';

/**
 * Express in ePayment (FACTS §14.1): a create whose body has `shipping` lets the user choose the address and the
 * shipping in the wallet (here: the landing page). The rules of such a create and of the choice the user makes, in
 * one place (their shapes: express-shipping.ts).
 */

/** The scopes an Express create asks for: exactly these, in any order (WooCommerce: `name email phoneNumber address`). */
export const EXPRESS_SCOPES = ['name', 'address', 'email', 'phoneNumber'] as const;
/** The user flows an Express payment takes: the ones that open the landing page, where the user chooses the shipping. */
export const EXPRESS_USER_FLOWS = ['WEB_REDIRECT', 'NATIVE_REDIRECT'] as const;
/**
 * The shape-level rules of `shipping` that JSON Schema cannot say (plain validation failures naming the field, as the
 * platform's are): both `fixedOptions` and `dynamicOptions`; the options' currency other than the payment's; an
 * option id twice; `callbackUrl` not an absolute http(s) URL.
 */
export function shippingProblems(shipping: Shipping | undefined, currency: Currency | undefined): ErrorDetail[] {
  if (!shipping) return [];
  const problems: ErrorDetail[] = [];
  if (shipping.fixedOptions && shipping.dynamicOptions) {
    problems.push({ name: 'shipping', reason: 'Give either fixedOptions or dynamicOptions, not both' });
  }
  if (shipping.fixedOptions) problems.push(...groupsProblems(shipping.fixedOptions, currency, 'shipping.fixedOptions'));
  if (shipping.dynamicOptions && !isHttpUrl(shipping.dynamicOptions.callbackUrl)) {
    problems.push({ name: 'shipping.dynamicOptions.callbackUrl', reason: 'Must be an absolute https:// URL' });
  }
  return problems;
}

/** Groups as a merchant gives them (in a create or a callback's answer): its currency, and each option id once. */
export function groupsProblems(groups: readonly ShippingGroup[], currency: Currency | undefined, at: string): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const seen = new Set<string>();
  groups.forEach((group, g) =>
    group.options.forEach((option, o) => {
      const where = `${at}[${g}].options[${o}]`;
      if (currency && option.amount.currency !== currency) {
        problems.push({ name: `${where}.amount.currency`, reason: `Must be the payment's currency, ${currency}` });
      }
      if (seen.has(option.id)) problems.push({ name: `${where}.id`, reason: 'Each option id only once' });
      seen.add(option.id);
    }),
  );
  return problems;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/**
 * The refusals of an Express create, with their codes (FACTS §14.1, §14.3), applied to every face once its fields are
 * well-formed: a payment method other than WALLET (4160), a scope set other than exactly `name address email
 * phoneNumber` (4080), neither `fixedOptions` nor `dynamicOptions` (4140). A create without `shipping` is not Express
 * and none of them applies. The sales unit's part (5020) is decided with the unit, in the create's statement.
 */
export function refuseExpress(command: CreatePaymentCommand): void {
  const { shipping } = command;
  if (!shipping) return;
  if (command.paymentMethod !== 'WALLET') {
    throw new AppError('EXPRESS_PAYMENT_METHOD', 'Express payments must use paymentMethod.type WALLET', [
      { name: 'paymentMethod.type', reason: 'Must be WALLET for an Express payment (with shipping)' },
    ]);
  }
  const words = new Set((command.profileScope ?? '').split(' ').filter((w) => w !== ''));
  if (words.size !== EXPRESS_SCOPES.length || !EXPRESS_SCOPES.every((s) => words.has(s))) {
    throw new AppError('EXPRESS_SCOPE', 'Express payments must ask for exactly the scopes name address email phoneNumber', [
      { name: 'profile.scope', reason: `Must be exactly ${EXPRESS_SCOPES.join(' ')} (in any order) for an Express payment` },
    ]);
  }
  if (!shipping.fixedOptions && !shipping.dynamicOptions) {
    throw new AppError('EXPRESS_SHIPPING_OPTIONS_MISSING', 'Express payments need fixedOptions or dynamicOptions', [
      { name: 'shipping', reason: 'Give fixedOptions or dynamicOptions' },
    ]);
  }
  if (!(EXPRESS_USER_FLOWS as readonly string[]).includes(command.userFlow)) {
    throw AppError.validation([{ name: 'userFlow', reason: `Must be ${EXPRESS_USER_FLOWS.join(' or ')} for an Express payment` }]);
  }
}

/**
 * The outbound URL policy (outbound-url.ts) on `dynamicOptions.callbackUrl`, judged at the create as checkout judges
 * its callback URLs at its create: a URL the service would refuse to call (not HTTPS, a private or loopback address in
 * production) is refused to the merchant, naming the field, instead of meeting every user as a shop that cannot ship.
 * The call itself goes through the same policy again (a name may resolve elsewhere later).
 */
export async function refuseExpressCallbackUrl(command: CreatePaymentCommand, env: PaygraphEnv): Promise<void> {
  const callbackUrl = command.shipping?.dynamicOptions?.callbackUrl;
  if (callbackUrl === undefined) return;
  const problem = await outboundUrlProblem(callbackUrl, env);
  if (problem) throw AppError.validation([{ name: 'shipping.dynamicOptions.callbackUrl', reason: problem }]);
}

/** Where the user may ship: `allowedCountries`, or the sales unit's country (FACTS §14.1). */
export function allowedCountriesOf(shipping: Shipping, unitCountry: string): readonly string[] {
  return shipping.allowedCountries ?? [unitCountry];
}

/** The option of these groups with this id. */
export function optionOf(groups: readonly ShippingGroup[], id: string): { group: ShippingGroup; option: ShippingOption } | undefined {
  for (const group of groups) {
    const option = group.options.find((o) => o.id === id);
    if (option) return { group, option };
  }
  return undefined;
}

/** The option chosen before the user chooses: the default group's default option (or its first), else the first. */
export function defaultOptionOf(groups: readonly ShippingGroup[]): ShippingOption | undefined {
  const group = groups.find((g) => g.isDefault) ?? groups.find((g) => g.options.some((o) => o.isDefault)) ?? groups[0];
  return group && (group.options.find((o) => o.isDefault) ?? group.options[0]);
}
