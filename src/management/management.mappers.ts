/**
 * The graph's types whose resolvers get one of this domain's values as their parent, for graphql-codegen (codegen.ts
 * collects every `src/<folder>/<folder>.mappers.ts`): type name -> `file#Type`, the file relative to this folder.
 */
export const graphMappers: Record<string, string> = {
  Viewer: './management.graph.js#ViewerParent',
  Merchant: './management.graph.js#MerchantRow',
  SalesUnit: './management.graph.js#SalesUnitParent',
  Partner: '../merchants/partner.entity.js#Partner as PartnerRow',
  ConnectedSalesUnit: './management.graph.js#ConnectedSalesUnitParent',
  ProductOrder: './product-order.entity.js#ProductOrder as ProductOrderRow',
  ApiQualityItem: './api-quality.service.js#ApiQualityItem as ApiQualityItemView',
  ProductOrderEvent: '../platform/events/outbox-event.js#OutboxEvent',
};
