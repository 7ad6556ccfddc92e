import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { signWebhookRequest } from '../../src/platform/delivery/webhook-signature.js';
import { MerchantClient, newReference } from '../support/merchant-client.js';
import { CONDITION_DEADLINE_MS } from '../support/deadlines.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { freePort } from '../support/free-port.js';

/**
 * Issue 35: the README's webhook verification recipe for merchants is `samples/webhook-receiver/receiver.mjs`, run
 * here as a merchant runs it (its own process, its own port) against real deliveries of this service.
 */
let t: TestApp;
let merchant: MerchantClient;
let receiver: ChildProcess | undefined;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  t = await startTestApp();
  merchant = new MerchantClient(t.baseUrl);
});
afterAll(async () => {
  receiver?.kill('SIGKILL');
  await t.close();
});

async function until(what: string, holds: () => boolean): Promise<void> {
  for (const deadline = Date.now() + CONDITION_DEADLINE_MS; !holds(); await new Promise((resolve) => setTimeout(resolve, 25))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the receiver printed ${JSON.stringify(lines)}`);
  }
}

test('the sample receiver verifies a real delivery and refuses one signed with another secret', async () => {
  const port = await freePort();
  // A path with a query: the signature covers both.
  const url = `http://127.0.0.1:${port}/hooks/paygraph?shop=1`;
  const registered = await merchant.request('POST', '/webhooks/v1/webhooks', { url, events: ['epayments.payment.created.v1'] });
  expect(registered.status).toBe(201);
  receiver = spawn(process.execPath, [join(process.cwd(), 'samples/webhook-receiver/receiver.mjs')], {
    env: { PATH: process.env.PATH, WEBHOOK_SECRET: registered.body.secret, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let pending = '';
  receiver.stdout!.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const complete = pending.split('\n');
    pending = complete.pop()!;
    for (const line of complete) lines.push(JSON.parse(line) as Record<string, unknown>);
  });
  await until('the receiver to listen', () => lines.some((l) => l.listening === port));

  const reference = newReference('sample');
  expect((await merchant.createPayment({ reference })).status).toBe(201);
  await until('a verified delivery', () => lines.some((l) => (l.body as { reference?: string } | undefined)?.reference === reference));
  const delivered = lines.find((l) => (l.body as { reference?: string } | undefined)?.reference === reference)!;
  expect(delivered).toMatchObject({ verified: true, eventId: expect.stringMatching(/^\d+$/), body: { name: 'CREATED', reference } });

  // The same kind of request, signed with a secret that is not the registration's: refused with 401.
  const body = JSON.stringify({ reference, name: 'CAPTURED' });
  const forged = await fetch(url, {
    method: 'POST',
    headers: { ...signWebhookRequest(new URL(url), body, 'not-the-secret', new Date()), 'content-type': 'application/json' },
    body,
  });
  expect(forged.status).toBe(401);
  await until('the refusal', () => lines.some((l) => l.verified === false));
  expect(lines.filter((l) => l.verified === false)).toEqual([{ verified: false, reason: 'signature does not match' }]);
});
