import type { Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import type { DatabaseGauge } from '../platform/observability/metrics.js';
import { countPaymentsNeedingAttention } from './payment-attention.queries.js';

/**
 * `paygraph_payments_needing_attention{reason}`: the payments of every sales unit that need attention, counted from
 * the database at scrape time, so every instance reports the same number (aggregate with max, not sum).
 */
export function paymentAttentionGauge(services: Services): DatabaseGauge {
  return {
    name: 'paygraph_payments_needing_attention',
    help: 'Payments that need attention, by reason (the graph field paymentsNeedingAttention); the same on every instance',
    labelNames: ['reason'],
    read: async () => {
      const counts = await countPaymentsNeedingAttention(forkEm(services.orm), services.clock.now(), services.config.attention);
      return Object.entries(counts).map(([reason, value]) => ({ labels: { reason: reason.toLowerCase() }, value }));
    },
  };
}
