import { AppError } from '../platform/errors/app-error.js';
import type { Services } from '../platform/context.js';
import { jsonBody } from '../platform/rest/body.js';
import type { HeaderRules } from '../platform/rest/headers.js';
import type { Route } from '../platform/rest/http-types.js';
import { merchantRequest } from '../platform/rest/merchant-request.js';
import { renderEpaymentProblem } from '../platform/rest/problem.js';
import { deleteWebhook, isWebhookId, listWebhooks, registerWebhook } from './webhook.service.js';
import { parseWebhookRegistration } from './webhook.rules.js';

const RULES: HeaderRules = { msn: 'required', idempotencyKey: 'absent', systemHeaderMaxLength: 30 };

/** The Webhooks API v1 (FACTS §2): the same credentials and problem body as the ePayment API. */
export function webhookRoutes(services: Services): Route[] {
  const route = (method: string, pattern: string, handler: Route['handler']): Route => ({
    method,
    pattern,
    handler,
    renderError: renderEpaymentProblem,
  });
  return [
    route('GET', '/webhooks/v1/webhooks', async (request) => {
      const { ctx } = await merchantRequest(services, request, RULES);
      const webhooks = await listWebhooks(ctx);
      return { status: 200, body: { webhooks: webhooks.map((w) => ({ id: w.id, url: w.url, events: w.events })) } };
    }),
    route('POST', '/webhooks/v1/webhooks', async (request) => {
      const { ctx } = await merchantRequest(services, request, RULES);
      const registration = await parseWebhookRegistration(jsonBody(request), services.config.env);
      const { webhook, secret } = await registerWebhook(ctx, registration);
      return { status: 201, body: { id: webhook.id, secret } };
    }),
    route('DELETE', '/webhooks/v1/webhooks/{id}', async (request) => {
      const { ctx } = await merchantRequest(services, request, RULES);
      const id = request.params.id!;
      // The spec types the path id as a UUID: anything else is a bad request (400), not an unknown webhook (404).
      if (!isWebhookId(id)) throw AppError.validation([{ name: 'id', reason: 'Must be a UUID' }]);
      await deleteWebhook(ctx, id);
      return { status: 204 };
    }),
  ];
}
