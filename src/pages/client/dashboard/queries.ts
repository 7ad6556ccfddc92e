/**
 * Every operation the dashboard sends: all it shows comes from the graph. Each exported document (a string, or the
 * strings of an exported record) is registered as a trusted document at the service's start, and the bundle names it
 * by its sha256 (scripts/build-pages.mjs, src/pages/dashboard-documents.ts): so define none elsewhere.
 */

const NOTIFICATION = `
  event { id eventId name reference amount { value currency } timestamp success }
  payment { reference state outcome amount { value currency } }`;

/** From `after` (the newest event id the page holds) on: the service replays what the page missed, then goes live. */
export const FEED_SUBSCRIPTION = `subscription Feed($after: ID) { paymentEvents(after: $after) { ${NOTIFICATION} } }`;

export const RECENT_EVENTS = `query RecentEvents($first: Int!) {
  recentPaymentEvents(first: $first) { edges { node { ${NOTIFICATION} } } }
}`;

export const SALES_UNITS = `query SalesUnits { salesUnits { msn name } }`;

/** Periods by the clock their rows are stamped with (payments: the unit's test clock, where it was moved; webhook attempts: real time): the dashboard sends no time of its own. */
export const OVERVIEW = `query Overview {
  paymentTotals { since asOf byOutcome { outcome count } captured { value currency } refunded { value currency } }
  paymentEventsPerMinute { minute count }
  webhooks { id url failureRate { attempts failed rate failing } }
}`;

export const SEARCH = `query Search($first: Int!, $after: String, $filter: PaymentFilter) {
  payments(first: $first, after: $after, filter: $filter) {
    edges { node {
      reference state outcome createdAt amount { value currency }
      aggregate { capturedAmount { value currency } refundedAmount { value currency } cancelledAmount { value currency } }
    } }
    pageInfo { hasNextPage endCursor }
  }
}`;

const DELIVERY = `id eventType eventName reference status attemptCount nextAttemptAt deliveredAt lastStatusCode createdAt targetUrl waitingForEarlierEvent
  attempts(first: 50) { edges { node { attemptedAt state outcome statusCode durationMs error } } }`;

/** Every registration with its health: failed and pending deliveries first, then the latest delivered ones. */
export const WEBHOOKS = `query Webhooks {
  webhooks {
    id url events createdAt failureRate { attempts failed rate failing }
    open: deliveries(first: 50, status: [FAILED, PENDING]) { edges { node { ${DELIVERY} } } }
    delivered: deliveries(first: 10, status: [DELIVERED]) { edges { node { ${DELIVERY} } } }
  }
}`;

export const REDELIVER_FAILED = `mutation RedeliverFailed($id: ID!) {
  redeliverFailedWebhookDeliveries(input: { webhookId: $id }) { redelivered userErrors { code message } }
}`;

const TIMELINE = `edges { node { id name amount { value currency } timestamp success idempotencyKey } } pageInfo { hasNextPage endCursor }`;

export const PAYMENT_EVENTS_PAGE = `query PaymentEventsPage($reference: String!, $after: String!) {
  payment(reference: $reference) { events(first: 100, after: $after) { ${TIMELINE} } }
}`;

export const PAYMENT = `query Payment($reference: String!) {
  payment(reference: $reference) {
    reference pspReference state outcome userFlow paymentDescription createdAt expiresAt
    amount { value currency }
    aggregate {
      authorizedAmount { value currency } capturedAmount { value currency }
      cancelledAmount { value currency } refundedAmount { value currency }
    }
    allowedActions { capture { value currency } refund { value currency } cancel }
    metadata { key value }
    shippingDetails {
      address { addressLine1 addressLine2 city postCode country }
      shippingOptionId shippingOptionName shippingCost { value currency }
    }
    order {
      category { category orderDetailsUrl imageId }
      images { imageId width height }
      totalAmount { value currency } receiptNumber
      orderLines { id name quantity quantityUnit unitPrice { value currency } totalAmount { value currency } taxRate isReturn isShipping }
    }
    events(first: 100) { ${TIMELINE} }
    webhookDeliveries(first: 50) { edges { node { ${DELIVERY} } } }
    webhookDeliveriesPrunedBefore
  }
}`;

export const PAYMENT_EVENTS = `subscription PaymentEvents($reference: String!) { paymentEvents(reference: $reference) { event { id } } }`;

/** Payments of the unit that need attention (the Needs attention panel), newest first. */
export const ATTENTION = `query Attention($first: Int!, $after: String) {
  paymentsNeedingAttention(first: $first, after: $after) {
    edges { node {
      payment { reference state amount { value currency } }
      causes { reason since delivery { id status attemptCount lastStatusCode targetUrl } }
    } }
    pageInfo { hasNextPage endCursor }
  }
}`;

export const REDELIVER = `mutation Redeliver($id: ID!) {
  redeliverWebhookDelivery(input: { deliveryId: $id }) { delivery { id status } userErrors { code message } }
}`;

export interface MoneyData {
  value: number;
  currency: string;
}

export interface Notification {
  event: { id: string; eventId: string; name: string; reference: string; amount: MoneyData; timestamp: string; success: boolean };
  payment: { reference: string; state: string; outcome: string; amount: MoneyData };
}

export interface OverviewData {
  paymentTotals: {
    since: string;
    asOf: string;
    byOutcome: { outcome: string; count: number }[];
    captured: MoneyData[];
    refunded: MoneyData[];
  };
  paymentEventsPerMinute: { minute: string; count: number }[];
  webhooks: Pick<WebhookData, 'id' | 'url' | 'failureRate'>[];
}

export interface WebhookData {
  id: string;
  url: string;
  events: string[];
  createdAt: string;
  failureRate: { attempts: number; failed: number; rate: number; failing: boolean };
  open: { edges: { node: DeliveryData }[] };
  delivered: { edges: { node: DeliveryData }[] };
}

export interface AttemptData {
  attemptedAt: string;
  state: string;
  outcome: 'IN_FLIGHT' | 'SUCCEEDED' | 'FAILED' | 'INTERRUPTED';
  statusCode: number | null;
  durationMs: number | null;
  error: string | null;
}

export interface DeliveryData {
  id: string;
  /** Any event type's public name; eventName is the short ePayment name of a payment event (null otherwise). */
  eventType: string;
  eventName: string | null;
  status: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  lastStatusCode: number | null;
  createdAt: string;
  reference: string;
  targetUrl: string;
  waitingForEarlierEvent: boolean;
  attempts: { edges: { node: AttemptData }[] };
}

export interface PaymentData {
  reference: string;
  pspReference: string;
  state: string;
  outcome: string;
  userFlow: string;
  paymentDescription: string | null;
  createdAt: string;
  expiresAt: string;
  amount: MoneyData;
  aggregate: Record<'authorizedAmount' | 'capturedAmount' | 'cancelledAmount' | 'refundedAmount', MoneyData>;
  /** What the payment can still take, as the service decides it (src/payments/payment-allowances.ts). */
  allowedActions: { capture: MoneyData; refund: MoneyData; cancel: 'TERMINATE' | 'RELEASE' | null };
  metadata: { key: string; value: string }[];
  /** Express: the address and option the user chose; null for a payment that is not Express or not approved yet. */
  shippingDetails: ShippingData | null;
  order: OrderData | null;
  events: {
    edges: { node: { id: string; name: string; amount: MoneyData; timestamp: string; success: boolean; idempotencyKey: string | null } }[];
    pageInfo: { hasNextPage: boolean; endCursor: string | null };
  };
  webhookDeliveries: { edges: { node: DeliveryData }[] };
  /** Its deliveries created before this were pruned (README, Data lifecycle); null: none can have been. */
  webhookDeliveriesPrunedBefore: string | null;
}

export interface ShippingData {
  address: { addressLine1: string; addressLine2: string | null; city: string; postCode: string; country: string };
  shippingOptionId: string;
  shippingOptionName: string;
  shippingCost: MoneyData;
}

export interface OrderData {
  /** issue 9: the order's latest category (order management) and the image it names. */
  category: { category: string | null; orderDetailsUrl: string; imageId: string | null } | null;
  images: { imageId: string; width: number; height: number }[];
  totalAmount: MoneyData | null;
  receiptNumber: string | null;
  orderLines: {
    id: string;
    name: string;
    quantity: string | null;
    quantityUnit: string | null;
    unitPrice: MoneyData | null;
    totalAmount: MoneyData;
    /** Hundredths of a percent: 12.5 % is 1250. */
    taxRate: number | null;
    isReturn: boolean;
    isShipping: boolean;
  }[];
}

export interface SearchRow {
  reference: string;
  state: string;
  outcome: string;
  createdAt: string;
  amount: MoneyData;
  aggregate: Record<'capturedAmount' | 'refundedAmount' | 'cancelledAmount', MoneyData>;
}

export interface SearchData {
  payments: { edges: { node: SearchRow }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
}

const MODIFIED = `payment { reference aggregate { capturedAmount { value currency } refundedAmount { value currency } cancelledAmount { value currency } } }
  userErrors { code field message }`;

/** The payment page's actions: the graph's own mutations, with the rules and errors of the API. */
export const MODIFY: Record<'capture' | 'refund' | 'cancel', string> = {
  capture: `mutation Capture($input: CapturePaymentInput!) { result: capturePayment(input: $input) { ${MODIFIED} } }`,
  refund: `mutation Refund($input: RefundPaymentInput!) { result: refundPayment(input: $input) { ${MODIFIED} } }`,
  cancel: `mutation Cancel($input: CancelPaymentInput!) { result: cancelPayment(input: $input) { ${MODIFIED} } }`,
};

export interface ModifyData {
  result: { payment: { reference: string } | null; userErrors: { code: string; field: string | null; message: string }[] };
}

export const EVENT_LOG = `query EventLog($first: Int!, $after: String, $filter: StreamEventFilter) {
  events(first: $first, after: $after, filter: $filter) {
    edges { node { eventId name streamType streamId reference occurredAt payload } }
    pageInfo { hasNextPage endCursor }
  }
}`;

/** Every stream's events as they commit, after the newest one the log shows (replayed first, so none is missed). */
export const STREAM_EVENTS = `subscription StreamEvents($streamType: String, $after: ID) {
  streamEvents(streamType: $streamType, after: $after) { eventId name streamType streamId reference occurredAt payload }
}`;

export interface StreamEventData {
  eventId: string;
  name: string;
  streamType: string;
  streamId: string;
  reference: string | null;
  occurredAt: string;
  payload: string;
}
