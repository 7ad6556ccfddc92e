/**
 * The graph's types whose resolvers get one of this domain's values as their parent, for graphql-codegen (codegen.ts
 * collects every `src/<folder>/<folder>.mappers.ts`): type name -> `file#Type`, the file relative to this folder.
 */
export const graphMappers: Record<string, string> = {
  Payment: './payment.view.js#PaymentView',
  PaymentEvent: './payment-event.entity.js#PaymentEvent as PaymentEventRow',
  PaymentEventNotification: './payment-event.subscription.js#PaymentEventNotificationSource',
  PaymentProfile: './payment.view.js#PaymentProfileView',
};
