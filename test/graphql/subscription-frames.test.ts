import WebSocket from 'ws';
import { useTestApp } from '../support/app-fixture.js';
import { newReference } from '../support/merchant-client.js';
import { connectionParamsOf, eventually, graphqlWsUrl } from '../support/subscriber.js';

// A notification is graphql-ws's `next` message around a payload serialized once per event and operation
// (subscription-writer.ts), sent through ws: a raw graphql-transport-ws client checks frames of both short lengths
// (under 126 bytes, and up to 64 KiB with a 16-bit length) byte for byte against the message graphql-ws sends.
const t = useTestApp();

const SHORT = 'subscription { paymentEvents { event { name } } }';
const LONGER = `subscription { paymentEvents { event { name reference pspReference amount { value currency } }
  payment { reference state amount { value currency } aggregate { authorizedAmount { value } capturedAmount { value } } } } }`;

test('notifications of both short frame lengths arrive whole, as graphql-ws would send them', async () => {
  const socket = new WebSocket(graphqlWsUrl(t.baseUrl), 'graphql-transport-ws');
  const texts: string[] = [];
  socket.on('message', (data, isBinary) => {
    expect(isBinary).toBe(false);
    texts.push(data.toString());
  });
  const failures: Error[] = [];
  socket.on('error', (error) => failures.push(error));
  await new Promise((resolve) => socket.once('open', resolve));
  try {
    socket.send(JSON.stringify({ type: 'connection_init', payload: await connectionParamsOf(t.merchant) }));
    await eventually(() => texts.some((text) => JSON.parse(text).type === 'connection_ack'), 'the connection to be acknowledged');
    socket.send(JSON.stringify({ id: '1', type: 'subscribe', payload: { query: SHORT } }));
    socket.send(JSON.stringify({ id: 'longer', type: 'subscribe', payload: { query: LONGER } }));
    await eventually(() => t.app.app.services.events.subscriberCount === 2, 'both subscriptions to register');
    const reference = newReference('frames');
    expect((await t.merchant.createPayment({ reference, amount: { currency: 'NOK', value: 1_500 } })).status).toBe(201);
    await eventually(() => texts.filter((text) => JSON.parse(text).type === 'next').length === 2, 'both notifications');

    const next = texts.filter((text) => JSON.parse(text).type === 'next');
    const short = next.find((text) => JSON.parse(text).id === '1')!;
    const longer = next.find((text) => JSON.parse(text).id === 'longer')!;
    expect(Buffer.byteLength(short)).toBeLessThan(126);
    expect(Buffer.byteLength(longer)).toBeGreaterThanOrEqual(126);
    expect(short).toBe(JSON.stringify({ id: '1', type: 'next', payload: { data: { paymentEvents: { event: { name: 'CREATED' } } } } }));
    const payload = JSON.parse(longer).payload;
    expect(longer).toBe(JSON.stringify({ id: 'longer', type: 'next', payload }));
    expect(payload.data.paymentEvents).toMatchObject({
      event: { name: 'CREATED', reference, amount: { value: 1_500, currency: 'NOK' } },
      payment: { reference, state: 'CREATED', aggregate: { authorizedAmount: { value: 0 }, capturedAmount: { value: 0 } } },
    });
    expect(failures).toEqual([]);
  } finally {
    socket.close();
  }
});
