/**
 * The graph's types whose resolvers get one of this domain's values as their parent, for graphql-codegen (codegen.ts
 * collects every `src/<folder>/<folder>.mappers.ts`): type name -> `file#Type`, the file relative to this folder.
 */
export const graphMappers: Record<string, string> = {
  Webhook: './webhook.entity.js#Webhook as WebhookRow',
  WebhookDelivery: './webhook-delivery.service.js#WebhookDeliveryView',
  WebhookDeliveryAttempt: './webhook-delivery.service.js#WebhookAttemptView',
  PaymentNeedingAttention: './payment-attention.queries.js#PaymentNeedingAttention as PaymentNeedingAttentionRow',
  PaymentAttentionCause: './payment-attention.queries.js#PaymentAttentionCause as PaymentAttentionCauseRow',
};
