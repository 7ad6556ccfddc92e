import { MERCHANT_API_AUTH, MERCHANT_API_HEADERS } from '../platform/auth/merchant-api.js';
import type { Services } from '../platform/context.js';
import { epaymentProblem } from '../platform/rest/error-formats/epayment-problem.js';
import { defineRestInterface, type RestInterface } from '../platform/rest/rest-interface.js';
import { webhookRegistrationRequest } from './webhook.schemas.js';
import { parseWebhookRegistration } from './webhook.rules.js';
import { deleteWebhook, isWebhookId, listWebhooks, registerWebhook } from './webhook.service.js';

/** The Webhooks API v1 (FACTS §2): the same credentials and problem body as the ePayment API. */
export function webhookRoutes(services: Services): RestInterface {
  return defineRestInterface(
    services,
    { name: 'Webhooks API', prefix: '/webhooks/v1', errorFormat: epaymentProblem, auth: MERCHANT_API_AUTH, headers: MERCHANT_API_HEADERS },
    (route) => [
      route({
        method: 'GET',
        path: '/webhooks',
        summary: "List the sales unit's webhooks",
        idempotent: false,
        success: { status: 200, description: 'The registrations' },
        handler: async (ctx) => {
          const webhooks = await listWebhooks(ctx);
          return { status: 200, body: { webhooks: webhooks.map((w) => ({ id: w.id, url: w.url, events: w.events })) } };
        },
      }),
      route({
        method: 'POST',
        path: '/webhooks',
        summary: 'Register a webhook',
        idempotent: false,
        body: webhookRegistrationRequest,
        success: { status: 201, description: 'Registered; the secret is shown this once' },
        handler: async (ctx, { body }) => {
          const registration = await parseWebhookRegistration(body, services.config.env);
          const { webhook, secret } = await registerWebhook(ctx, registration);
          return { status: 201, body: { id: webhook.id, secret } };
        },
      }),
      route({
        method: 'DELETE',
        path: '/webhooks/{id}',
        summary: 'Delete a webhook',
        idempotent: false,
        // The spec types the path id as a UUID: anything else is a bad request (400), not an unknown webhook (404).
        params: { id: { accepts: isWebhookId, reason: 'Must be a UUID', jsonSchema: { type: 'string', format: 'uuid' } } },
        success: { status: 204, description: 'Deleted' },
        handler: async (ctx, { params }) => {
          await deleteWebhook(ctx, params.id);
          return { status: 204 };
        },
      }),
    ],
  );
}
