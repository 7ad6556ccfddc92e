// A merchant's webhook receiver that verifies every delivery before trusting it: Node 18 or later, no dependencies.
//
//   WEBHOOK_SECRET=<the secret POST /webhooks/v1/webhooks answered> PORT=3000 node samples/webhook-receiver/receiver.mjs
//
// Prints one JSON line per request: {"verified":true,"eventId":…,"body":…} or {"verified":false,"reason":…}. A verified
// delivery is answered 200 (a delivery is at least once: drop repeats by X-Paygraph-Event-Id); any other 401.
// test/webhooks/webhook-receiver-sample.test.ts runs this file against real deliveries.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

/** How far x-ms-date may be from this machine's clock: a captured request replayed later is refused. */
const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

/**
 * Whether a request is a delivery signed with `secret`: the body's SHA-256 (base64) is `x-ms-content-sha256`, and
 * the Authorization header's signature is HMAC-SHA256, keyed by the secret's UTF-8 bytes, over
 * `POST\n<path and query>\n<x-ms-date>;<host>;<x-ms-content-sha256>`.
 */
export function verifyWebhook({ method, pathAndQuery, headers, body, secret, now = Date.now() }) {
  const date = headers['x-ms-date'];
  const host = headers.host;
  const contentHash = headers['x-ms-content-sha256'];
  const signature = /^HMAC-SHA256 SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature=(.+)$/.exec(headers.authorization ?? '')?.[1];
  if (method !== 'POST' || !date || !host || !contentHash || !signature) return { verified: false, reason: 'not a signed delivery' };
  if (!(Math.abs(now - Date.parse(date)) <= MAX_CLOCK_SKEW_MS)) return { verified: false, reason: 'x-ms-date too far from now' };
  if (!same(createHash('sha256').update(body).digest('base64'), contentHash))
    return { verified: false, reason: 'body does not match its hash' };
  const signed = `POST\n${pathAndQuery}\n${date};${host};${contentHash}`;
  const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(signed, 'utf8').digest('base64');
  return same(expected, signature) ? { verified: true } : { verified: false, reason: 'signature does not match' };
}

function same(a, b) {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function startReceiver({ secret, port = 3000 }) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      // Verify the bytes as received: parsing and re-serialising the JSON first would change the hash.
      const body = Buffer.concat(chunks);
      const outcome = verifyWebhook({ method: req.method, pathAndQuery: req.url, headers: req.headers, body, secret });
      const line = outcome.verified
        ? { verified: true, eventId: req.headers['x-paygraph-event-id'], body: JSON.parse(body.toString('utf8')) }
        : outcome;
      process.stdout.write(`${JSON.stringify(line)}\n`);
      res.writeHead(outcome.verified ? 200 : 401).end();
    });
  });
  server.listen(port, () => process.stdout.write(`${JSON.stringify({ listening: server.address().port })}\n`));
  return server;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (!process.env.WEBHOOK_SECRET) {
    process.stderr.write('receiver: set WEBHOOK_SECRET to the secret the webhook registration answered\n');
    process.exit(1);
  }
  startReceiver({ secret: process.env.WEBHOOK_SECRET, port: Number(process.env.PORT ?? 3000) });
}
