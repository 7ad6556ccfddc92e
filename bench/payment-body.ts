/** A create-payment body every benchmark section sends: a web-redirect wallet payment in NOK. */
export const paymentBody = (reference: string, value = 10_000, paymentDescription = 'Benchmark') => ({
  amount: { currency: 'NOK', value },
  paymentMethod: { type: 'WALLET' },
  reference,
  userFlow: 'WEB_REDIRECT',
  returnUrl: 'https://merchant.example/return',
  paymentDescription,
});
