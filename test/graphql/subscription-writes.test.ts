import type { IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import { forkEm } from '../../src/platform/db/orm.js';
import { SocketWriter } from '../../src/platform/graph/subscription-writer.js';
import { MERCHANT_A, MerchantClient } from '../support/merchant-client.js';
import { commitCreatedEvents } from '../support/outbox-events.js';
import { connectionParamsOf, eventually, graphqlWsUrl } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// A socket's writes of one turn leave in one write to the kernel: its TCP socket is corked at the turn's first
// notification and uncorked when the turn ends (subscription-writer.ts). Every frame goes through ws's `send`, so
// a `complete` or a pong sent between two notifications keeps its place.
let t: TestApp;

beforeAll(async () => {
  // No keep-alive ping may fall among the writes counted.
  t = await startTestApp({ subscriptionKeepAliveMs: 600_000 });
});
afterAll(() => t.close());

/** Each write the TCP socket hands to the kernel (one `_write` or one `_writev`), as the bytes it carries. */
function countedWrites(socket: Socket): Buffer[] {
  const writes: Buffer[] = [];
  type Chunk = { chunk: Buffer | string; encoding: BufferEncoding };
  const counted = socket as unknown as {
    _write: (chunk: Buffer | string, encoding: BufferEncoding, callback: (error?: Error | null) => void) => void;
    _writev: (chunks: Chunk[], callback: (error?: Error | null) => void) => void;
  };
  const write = counted._write;
  const writev = counted._writev;
  counted._write = function (chunk, encoding, callback) {
    writes.push(Buffer.from(chunk as string, encoding));
    return write.call(this, chunk, encoding, callback);
  };
  counted._writev = function (chunks, callback) {
    writes.push(Buffer.concat(chunks.map(({ chunk, encoding }) => Buffer.from(chunk as string, encoding))));
    return writev.call(this, chunks, callback);
  };
  return writes;
}

/** The server's frames (unmasked, RFC 6455 5.2) in `bytes`: opcode and text. */
function framesOf(bytes: Buffer): { opcode: number; text: string }[] {
  const frames: { opcode: number; text: string }[] = [];
  for (let offset = 0; offset < bytes.length;) {
    let length = bytes[offset + 1]! & 0x7f;
    let header = 2;
    if (length === 126) {
      length = bytes.readUInt16BE(offset + 2);
      header = 4;
    } else if (length === 127) {
      length = Number(bytes.readBigUInt64BE(offset + 2));
      header = 10;
    }
    frames.push({ opcode: bytes[offset]! & 0x0f, text: bytes.subarray(offset + header, offset + header + length).toString() });
    offset += header + length;
  }
  return frames;
}

const TEXT = 0x1;
const PONG = 0xa;

test("a turn's notifications to a socket, of two events and three subscriptions, leave in one write", async () => {
  const serverSockets: Socket[] = [];
  const onUpgrade = (_req: IncomingMessage, socket: Socket) => serverSockets.push(socket);
  t.app.server.on('upgrade', onUpgrade);
  const client = new WebSocket(graphqlWsUrl(t.baseUrl), 'graphql-transport-ws');
  const received: { id?: string; type: string }[] = [];
  client.on('message', (data: Buffer) => received.push(JSON.parse(data.toString()) as { type: string }));
  try {
    await new Promise((resolve) => client.once('open', resolve));
    client.send(JSON.stringify({ type: 'connection_init', payload: await connectionParamsOf(new MerchantClient(t.baseUrl, MERCHANT_A)) }));
    await eventually(() => received.some((message) => message.type === 'connection_ack'), 'the connection to be acknowledged');
    // Event fields only: each execution settles without a database read, in the turn its event is published.
    const documents = {
      references: 'subscription { paymentEvents { event { reference } } }',
      names: 'subscription { paymentEvents { event { name } } }',
      'references-again': 'subscription { paymentEvents { event { reference } } }',
    };
    for (const [id, query] of Object.entries(documents)) client.send(JSON.stringify({ id, type: 'subscribe', payload: { query } }));
    await eventually(() => t.app.services.events.subscriberCount === 3, 'the three subscriptions');
    const writes = countedWrites(serverSockets[0]!);

    await commitCreatedEvents(forkEm(t.app.services.orm), 'one-write-', 2);
    await eventually(() => received.filter((message) => message.type === 'next').length === 6, 'six notifications');

    expect(writes).toHaveLength(1);
    const frames = framesOf(writes[0]!);
    expect(frames.map((frame) => frame.opcode)).toEqual(Array(6).fill(TEXT));
    const next = frames.map((frame) => JSON.parse(frame.text) as { id: string; payload: { data: { paymentEvents: { event: unknown } } } });
    for (const id of ['references', 'references-again'])
      expect(next.filter((message) => message.id === id).map((message) => message.payload.data.paymentEvents.event)).toEqual([
        { reference: 'one-write-1' },
        { reference: 'one-write-2' },
      ]);
    expect(next.filter((message) => message.id === 'names').map((message) => message.payload.data.paymentEvents.event)).toEqual([
      { name: 'CREATED' },
      { name: 'CREATED' },
    ]);
  } finally {
    t.app.server.off('upgrade', onUpgrade);
    client.close();
  }
});

test('a complete and a pong sent between notifications of one turn keep their order, in the same write', async () => {
  const server = new WebSocketServer({ port: 0 });
  const connected = new Promise<{ socket: WebSocket; request: IncomingMessage }>((resolve) =>
    server.once('connection', (socket, request) => resolve({ socket, request })),
  );
  await new Promise((resolve) => server.once('listening', resolve));
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  const arrived: string[] = [];
  client.on('message', (data: Buffer) => arrived.push(data.toString()));
  client.on('pong', () => arrived.push('pong'));
  try {
    const { socket, request } = await connected;
    const writer = new SocketWriter(socket, request.socket as Socket, 1024 * 1024, { notifications: 0 });
    const writes = countedWrites(request.socket as Socket);
    const first = '{"id":"a","type":"next","payload":{"data":{"n":1}}}';
    const complete = '{"id":"b","type":"complete"}';
    const second = '{"id":"a","type":"next","payload":{"data":{"n":2}}}';
    // One turn: a notification, graphql-ws's complete, ws's pong, a notification.
    writer.send(Buffer.from(first));
    socket.send(complete);
    socket.pong();
    writer.send(Buffer.from(second));
    expect(writes).toEqual([]);

    await eventually(() => arrived.length === 4, 'the four frames');
    expect(arrived).toEqual([first, complete, 'pong', second]);
    expect(writes).toHaveLength(1);
    expect(framesOf(writes[0]!)).toEqual([
      { opcode: TEXT, text: first },
      { opcode: TEXT, text: complete },
      { opcode: PONG, text: '' },
      { opcode: TEXT, text: second },
    ]);
  } finally {
    client.close();
    await new Promise((resolve) => server.close(resolve));
  }
});
