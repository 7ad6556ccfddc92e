import { createHash, createHmac } from 'node:crypto';

/** The headers that authenticate one webhook request (FACTS §2, `request-authentication.md`). */
export interface SignedHeaders {
  'x-ms-date': string;
  'x-ms-content-sha256': string;
  host: string;
  authorization: string;
}

/**
 * Signs a POST of `body` to `url` the way the public webhook definition does: HMAC-SHA256 keyed by the UTF-8
 * bytes of the registration secret (not base64-decoded) over `POST\n<path and query>\n<date>;<host>;<hash>`.
 * The host is the URL's authority (with a non-default port), exactly as it goes out in the Host header.
 */
export function signWebhookRequest(url: URL, body: string | Buffer, secret: string, date: Date): SignedHeaders {
  const xMsDate = date.toUTCString();
  const contentHash = createHash('sha256').update(body).digest('base64');
  const stringToSign = `POST\n${url.pathname}${url.search}\n${xMsDate};${url.host};${contentHash}`;
  const signature = createHmac('sha256', Buffer.from(secret, 'utf8')).update(stringToSign, 'utf8').digest('base64');
  return {
    'x-ms-date': xMsDate,
    'x-ms-content-sha256': contentHash,
    host: url.host,
    authorization: `HMAC-SHA256 SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature=${signature}`,
  };
}

/** The header a receiver de-duplicates on: the outbox id of the event, the same on every retry. */
export const EVENT_ID_HEADER = 'x-paygraph-event-id';

/**
 * Every header of a webhook delivery of event `eventId` with `body` to `url`, signed with `secret` at `date`: what the
 * webhook dispatcher sends, and what `paygraph listen` forwards, so a receiver cannot tell the two apart.
 */
export function webhookRequestHeaders(
  url: URL,
  eventId: number | string,
  body: string,
  secret: string,
  date: Date,
): Record<string, string> {
  return { 'content-type': 'application/json', [EVENT_ID_HEADER]: String(eventId), ...signWebhookRequest(url, body, secret, date) };
}
