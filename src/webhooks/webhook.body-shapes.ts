import { AppError } from '../platform/errors/app-error.js';
import type { BodyShape } from '../platform/rest/body-shape.js';
import { isObject, type Json } from '../platform/validation/checker.js';
import { WEBHOOK_EVENT_NAMES } from './webhook-events.js';

/**
 * The registration body `{url, events}` (FACTS §2). Only its being an object is checked here: the fields are
 * checked by `parseWebhookRegistration`, shared with the graph, whose URL policy needs an address lookup.
 */
export const webhookRegistrationBody: BodyShape<Json> = {
  jsonSchema: {
    type: 'object',
    required: ['url', 'events'],
    properties: {
      url: { type: 'string', format: 'uri' },
      events: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: [...WEBHOOK_EVENT_NAMES] } },
    },
  },
  parse(raw) {
    if (!isObject(raw)) throw AppError.validation([{ name: 'body', reason: 'Must be a JSON object with url and events' }]);
    return raw;
  },
};
