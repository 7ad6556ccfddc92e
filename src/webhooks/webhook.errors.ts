import { defineErrors, type CatalogueEntry } from '../platform/errors/catalogue.js';

export const webhookErrors = defineErrors('webhooks', {
  WEBHOOK_NOT_FOUND: { status: 404, title: 'Webhook not found' },
  WEBHOOK_LIMIT_REACHED: { status: 400, title: 'Too many webhooks for this event' },
  WEBHOOK_DELIVERY_NOT_FOUND: { status: 404, title: 'Webhook delivery not found' },
  WEBHOOK_DELIVERY_ALREADY_DELIVERED: { status: 409, title: 'Webhook delivery already delivered' },
});

declare module '../platform/errors/catalogue.js' {
  interface ErrorCatalogue extends Record<keyof typeof webhookErrors, CatalogueEntry> {}
}
