/** Every operation the dashboard sends: all it shows comes from the graph. */

const NOTIFICATION = `
  event { id name reference amount { value currency } timestamp success }
  payment { reference state amount { value currency } }`;

export const FEED_SUBSCRIPTION = `subscription Feed { paymentEvents { ${NOTIFICATION} } }`;

export const RECENT_EVENTS = `query RecentEvents($first: Int!) {
  recentPaymentEvents(first: $first) { edges { node { ${NOTIFICATION} } } }
}`;

export const SALES_UNITS = `query SalesUnits { salesUnits { msn name } }`;

export const OVERVIEW = `query Overview($today: DateTime!, $hourAgo: DateTime!) {
  paymentTotals(since: $today) { byState { state count } captured { value currency } refunded { value currency } }
  paymentEventsPerMinute(since: $hourAgo) { minute count }
}`;

export const WEBHOOKS = `query Webhooks { webhooks { id url events createdAt failureRate { attempts failed rate } } }`;

export const PAYMENT = `query Payment($reference: String!) {
  payment(reference: $reference) {
    reference pspReference state userFlow paymentDescription createdAt expiresAt
    amount { value currency }
    aggregate {
      authorizedAmount { value currency } capturedAmount { value currency }
      cancelledAmount { value currency } refundedAmount { value currency }
    }
    metadata { key value }
    order {
      category { category orderDetailsUrl imageId }
      images { imageId width height }
      totalAmount { value currency } receiptNumber
      orderLines { id name quantity quantityUnit unitPrice { value currency } totalAmount { value currency } taxRate isReturn isShipping }
    }
    events(first: 100) { edges { node { id name amount { value currency } timestamp success idempotencyKey } } }
    webhookDeliveries(first: 50) {
      edges { node {
        id eventName status attemptCount nextAttemptAt deliveredAt lastStatusCode createdAt
        attempts(first: 50) { edges { node { attemptedAt state statusCode durationMs error } } }
      } }
    }
  }
}`;

export const PAYMENT_EVENTS = `subscription PaymentEvents($reference: String!) { paymentEvents(reference: $reference) { event { id } } }`;

export const REDELIVER = `mutation Redeliver($id: ID!) {
  redeliverWebhookDelivery(input: { deliveryId: $id }) { delivery { id status } userErrors { code message } }
}`;

export interface MoneyData {
  value: number;
  currency: string;
}

export interface Notification {
  event: { id: string; name: string; reference: string; amount: MoneyData; timestamp: string; success: boolean };
  payment: { reference: string; state: string; amount: MoneyData };
}

export interface OverviewData {
  paymentTotals: { byState: { state: string; count: number }[]; captured: MoneyData[]; refunded: MoneyData[] };
  paymentEventsPerMinute: { minute: string; count: number }[];
}

export interface WebhookData {
  id: string;
  url: string;
  events: string[];
  createdAt: string;
  failureRate: { attempts: number; failed: number; rate: number };
}

export interface AttemptData {
  attemptedAt: string;
  state: string;
  statusCode: number | null;
  durationMs: number | null;
  error: string | null;
}

export interface DeliveryData {
  id: string;
  eventName: string;
  status: string;
  attemptCount: number;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
  lastStatusCode: number | null;
  createdAt: string;
  attempts: { edges: { node: AttemptData }[] };
}

export interface PaymentData {
  reference: string;
  pspReference: string;
  state: string;
  userFlow: string;
  paymentDescription: string | null;
  createdAt: string;
  expiresAt: string;
  amount: MoneyData;
  aggregate: Record<'authorizedAmount' | 'capturedAmount' | 'cancelledAmount' | 'refundedAmount', MoneyData>;
  metadata: { key: string; value: string }[];
  order: OrderData | null;
  events: {
    edges: { node: { id: string; name: string; amount: MoneyData; timestamp: string; success: boolean; idempotencyKey: string | null } }[];
  };
  webhookDeliveries: { edges: { node: DeliveryData }[] };
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
