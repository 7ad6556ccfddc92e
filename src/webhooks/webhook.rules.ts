import type { PaygraphEnv } from '../config.js';
import { outboundUrlProblem } from '../platform/delivery/outbound-url.js';
import { AppError, type ErrorDetail } from '../platform/errors/app-error.js';
import { isJsonObject } from '../platform/validation/declare-body.js';
import { webhookRegistrationBody, type WebhookRegistration } from './webhook.schemas.js';

/**
 * A registration as both faces take it: its declared shape, then the outbound URL policy, every problem named at
 * once. The policy is apart from the schema because in production it asks DNS where the host points.
 */
export async function parseWebhookRegistration(raw: unknown, env: PaygraphEnv): Promise<WebhookRegistration> {
  let registration: WebhookRegistration | undefined;
  let details: ErrorDetail[] = [];
  try {
    registration = webhookRegistrationBody.parse(raw);
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'VALIDATION_FAILED') throw error;
    details = error.details;
  }
  if (isJsonObject(raw) && !details.some((d) => d.name === 'url')) {
    const problem = await outboundUrlProblem(raw.url, env);
    if (problem) details.unshift({ name: 'url', reason: problem });
  }
  if (details.length > 0 || !registration) throw AppError.validation(details);
  return registration;
}
