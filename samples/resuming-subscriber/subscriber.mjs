// A subscriber that loses no event across reconnects and server restarts: Node 22 (its global WebSocket) and graphql-ws.
//
//   npm i graphql-ws
//   PAYGRAPH_URL=http://localhost:8080 node samples/resuming-subscriber/subscriber.mjs
//
// Prints one JSON line per payment event, each once, in order. test/graphql/resuming-subscriber-sample.test.ts runs
// this file against a service that is stopped and started again between two payments.
//
// Why not graphql-ws's own retry: on a reconnect it sends the subscription again with the variables it was first
// given. Without `after:` that is a live-only subscription that starts from the new socket, so everything that
// committed while the socket was down is silently lost; with the first `after:` it replays from the start every time.
// So the library's retry is off (`retryAttempts: 0`), and this loop subscribes again itself, each time with `after:`
// the last event it handled: the service replays what came since, in commit order, then goes live. Keep `after` in
// durable storage (a file, your database) to resume across restarts of the subscriber too.
import { createClient } from 'graphql-ws';

const EVENTS = `subscription($after: ID) {
  paymentEvents(after: $after) { event { eventId name reference amount { value currency } } }
}`;

/** Fresh headers for each connection: an access token expires, a reconnect an hour later needs a new one. */
async function connectionParams(baseUrl, credentials) {
  const res = await fetch(`${baseUrl}/accesstoken/get`, {
    method: 'POST',
    headers: {
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      'Ocp-Apim-Subscription-Key': credentials.subscriptionKey,
    },
  });
  if (!res.ok) throw new Error(`access token: ${res.status}`);
  const { access_token: token } = await res.json();
  return {
    Authorization: `Bearer ${token}`,
    'Ocp-Apim-Subscription-Key': credentials.subscriptionKey,
    'Merchant-Serial-Number': credentials.msn,
  };
}

/**
 * Follows the sales unit's payment events from `after` (an event id; "0" for the stream's start) until `signal` aborts,
 * calling `onEvent` once per event in order. Resolves with the last event id handled.
 */
export async function followPaymentEvents({ baseUrl, credentials, after = '0', onEvent, onReconnect = () => {}, signal }) {
  const client = createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    connectionParams: () => connectionParams(baseUrl, credentials),
    // The library's retry would re-send the first variables; this loop resubscribes with the newest `after` instead.
    retryAttempts: 0,
  });
  let last = after;
  let delayMs = 250;
  try {
    while (!signal?.aborted) {
      const subscription = client.iterate({ query: EVENTS, variables: { after: last } });
      const stop = () => subscription.return?.();
      signal?.addEventListener('abort', stop, { once: true });
      try {
        for await (const result of subscription) {
          if (result.errors) throw new Error(JSON.stringify(result.errors));
          const { event } = result.data.paymentEvents;
          await onEvent(event);
          last = event.eventId;
          delayMs = 250;
        }
      } catch (error) {
        // A closed socket (a restart: 1012, a network loss) or a refused connection: wait, then resume after `last`.
        if (signal?.aborted) break;
        onReconnect(error, last);
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        delayMs = Math.min(delayMs * 2, 10_000);
      } finally {
        signal?.removeEventListener('abort', stop);
      }
    }
  } finally {
    await client.dispose();
  }
  return last;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  const last = await followPaymentEvents({
    baseUrl: process.env.PAYGRAPH_URL ?? 'http://localhost:8080',
    // The test environment's merchant (TEST-ENVIRONMENT.md); yours from the operator's create-client.
    credentials: {
      clientId: process.env.CLIENT_ID ?? 'test-client-123456',
      clientSecret: process.env.CLIENT_SECRET ?? 'test-secret-123456',
      subscriptionKey: process.env.SUBSCRIPTION_KEY ?? 'test-key-123456',
      msn: process.env.MSN ?? '123456',
    },
    after: process.env.AFTER ?? '0',
    onEvent: (event) => console.log(JSON.stringify(event)),
    onReconnect: (error, after) => console.error(`reconnecting after event ${after}: ${error?.message ?? error?.code ?? error}`),
    signal: controller.signal,
  });
  console.error(`stopped after event ${last}`);
}
