/** Where an outbound delivery (a webhook delivery, a callback) stands: retried while pending, then final. */
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';
