import Type from 'typebox';
import type { BodyShape } from '../platform/rest/body-shape.js';
import { declareBody, isJsonObject } from '../platform/validation/declare-body.js';
import { REASONS } from '../platform/validation/error-details.js';
import { stringEnum } from '../platform/validation/string-enum.js';
import { WEBHOOK_EVENT_NAMES } from './webhook-events.js';

export interface WebhookRegistration {
  url: string;
  events: string[];
}

const EVENTS_REASON = 'Must be a non-empty array of event names';
const UNKNOWN_EVENT = `Unknown event; one of ${[...WEBHOOK_EVENT_NAMES].join(', ')}`;

/**
 * `POST /webhooks/v1/webhooks` (`OA/webhooks-v1.yaml#/components/schemas/RegisterRequest`). Whether the URL may be
 * called (scheme, address) is the outbound URL policy, checked in webhook.rules.ts: it may need DNS.
 */
const RegisterRequest = Type.Object(
  {
    url: Type.String({ maxLength: 2048, pattern: '\\S', [REASONS]: { type: 'Required', pattern: 'Required' } }),
    events: Type.Array(stringEnum([...WEBHOOK_EVENT_NAMES], { [REASONS]: { type: UNKNOWN_EVENT, enum: UNKNOWN_EVENT } }), {
      minItems: 1,
      [REASONS]: { type: EVENTS_REASON, minItems: EVENTS_REASON },
    }),
  },
  { [REASONS]: { type: 'Must be a JSON object with url and events', required: { events: EVENTS_REASON } } },
);

export const webhookRegistrationBody: BodyShape<WebhookRegistration> = declareBody(RegisterRequest, {
  fieldRules: (body, details) => {
    if (!isJsonObject(body) || !Array.isArray(body.events)) return [];
    const events: unknown[] = body.events;
    return events.flatMap((name, i) =>
      events.indexOf(name) < i && !details.some((d) => d.name === `events[${i}]`)
        ? [{ name: `events[${i}]`, reason: 'Listed more than once' }]
        : [],
    );
  },
  toCommand: (body) => ({ url: body.url, events: body.events }),
});
