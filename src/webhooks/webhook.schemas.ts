import Type from 'typebox';
import { eventTypes } from '../platform/events/event-types.js';
import type { BodyShape } from '../platform/rest/body-shape.js';
import { declareBody, isJsonObject } from '../platform/validation/declare-body.js';
import { REASONS } from '../platform/validation/error-details.js';

export interface WebhookRegistration {
  url: string;
  events: string[];
}

const EVENTS_REASON = 'Must be a non-empty array of event names';

/**
 * `POST /webhooks/v1/webhooks` (`OA/webhooks-v1.yaml#/components/schemas/RegisterRequest`). Which event names exist
 * is known only once the domains have registered their event types at start, so the names are checked by a rule
 * and filled into the published schema when it is read. Whether the URL may be called (scheme, address) is the
 * outbound URL policy, checked in webhook.rules.ts: it may need DNS.
 */
const RegisterRequest = Type.Object(
  {
    url: Type.String({ maxLength: 2048, pattern: '\\S', [REASONS]: { type: 'Required', pattern: 'Required' } }),
    events: Type.Array(Type.Unknown(), { minItems: 1, [REASONS]: { type: EVENTS_REASON, minItems: EVENTS_REASON } }),
  },
  { [REASONS]: { type: 'Must be a JSON object with url and events', required: { events: EVENTS_REASON } } },
);

const registration = declareBody(RegisterRequest, {
  fieldRules: (body, details) => {
    if (!isJsonObject(body) || !Array.isArray(body.events) || details.some((d) => d.name === 'events')) return [];
    const events: unknown[] = body.events;
    return events.flatMap((name, i) => {
      // Exactly the names the domains registered (payments: the ePayment events, FACTS §2).
      if (typeof name !== 'string' || !eventTypes.isWebhookEventName(name))
        return [{ name: `events[${i}]`, reason: `Unknown event; one of ${eventTypes.webhookEventNames().join(', ')}` }];
      return events.indexOf(name) < i ? [{ name: `events[${i}]`, reason: 'Listed more than once' }] : [];
    });
  },
  toCommand: (body) => ({ url: body.url, events: body.events as string[] }),
});

export const webhookRegistrationBody: BodyShape<WebhookRegistration> = {
  get jsonSchema() {
    const events = { ...RegisterRequest.properties.events, items: { type: 'string', enum: eventTypes.webhookEventNames() } };
    return { ...RegisterRequest, properties: { ...RegisterRequest.properties, events } };
  },
  parse: (raw) => registration.parse(raw),
};

/**
 * The route's view of the body: the declared schema for the OpenAPI document, the parsing left to
 * `parseWebhookRegistration`, so that shape problems and the outbound URL policy are reported together.
 */
export const webhookRegistrationRequest: BodyShape<unknown> = {
  get jsonSchema() {
    return webhookRegistrationBody.jsonSchema;
  },
  parse: (raw) => raw,
};
