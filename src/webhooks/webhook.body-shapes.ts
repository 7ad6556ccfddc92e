import { AppError } from '../platform/errors/app-error.js';
import type { BodyShape } from '../platform/rest/body-shape.js';
import { isObject, type Json } from '../platform/validation/checker.js';
import { eventTypes } from '../platform/events/event-types.js';

/**
 * The registration body `{url, events}` (FACTS §2). Only its being an object is checked here: the fields are
 * checked by `parseWebhookRegistration`, shared with the graph, whose URL policy needs an address lookup.
 */
export const webhookRegistrationBody: BodyShape<Json> = {
  // Read when the document is built: the event names are those the domains' modules registered by then.
  get jsonSchema() {
    return {
      type: 'object',
      required: ['url', 'events'],
      properties: {
        url: { type: 'string', format: 'uri' },
        events: { type: 'array', minItems: 1, uniqueItems: true, items: { type: 'string', enum: eventTypes.webhookEventNames() } },
      },
    };
  },
  parse(raw) {
    if (!isObject(raw)) throw AppError.validation([{ name: 'body', reason: 'Must be a JSON object with url and events' }]);
    return raw;
  },
};
