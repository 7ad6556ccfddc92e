/**
 * Every GraphQL document the bench sends over HTTP, in one place: `run.ts` sends them, and
 * test/graphql/apollo-pipeline.test.ts proves that Apollo Server's plugins see each one.
 */
export const CREATE =
  'mutation($input: CreatePaymentInput!) { createPayment(input: $input) { redirectUrl payment { reference } userErrors { code } } }';
export const CAPTURE =
  'mutation($input: CapturePaymentInput!) { capturePayment(input: $input) { payment { state aggregate { authorizedAmount { value } cancelledAmount { value } capturedAmount { value } refundedAmount { value } } } userErrors { code } } }';
export const GET =
  'query($r: String!) { payment(reference: $r) { reference pspReference state amount { value currency } aggregate { authorizedAmount { value } cancelledAmount { value } capturedAmount { value } refundedAmount { value } } paymentMethod { type } profile { sub } } }';
export const PAGE =
  '{ payments(first: 50) { edges { node { reference state aggregate { capturedAmount { value } } events { edges { node { name amount { value } timestamp } } } } } } }';
/** issue 36: a search over the caller's payments (a page of 50 matching a filter), newest first. */
export const SEARCH =
  'query($f: PaymentFilter!) { payments(first: 50, filter: $f) { edges { node { reference state amount { value } } } } }';
/** issue 9: the dashboard's payment page with each payment's order (category, image, receipt: one batch). */
export const ORDERS_PAGE =
  '{ payments(first: 50) { edges { node { reference order { category { category } images { imageId } receipt { receiptNumber } } } } } }';

/**
 * issue 20's hostile document: each of `levels` fragments spreads the next one twice, so a walk that follows every
 * spread makes 2^levels visits of the last one, from a document of about 1 KB.
 */
export function fragmentFanOutDocument(levels = 24): string {
  const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`);
  return [`query FanOut { ...F0 }`, ...fragments, `fragment F${levels} on Query { __typename }`].join('\n');
}

/**
 * issue 33 (N3)'s hostile document: one selection repeated, within the byte and token caps (740 times: 11.8 KB,
 * 2,962 tokens). Validation compares every pair of them: 80 ms to 1.1 s each before the admission bounded it.
 */
export function repeatedSelectionDocument(times = 740): string {
  return `{ ${Array.from({ length: times }, () => 'viewer { kind }').join(' ')} }`;
}
