import { connect, type Socket } from 'node:net';
import { jest } from '@jest/globals';
import WebSocket from 'ws';
import { eventually, graphqlWsUrl } from '../support/subscriber.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

// A client that breaks the WebSocket protocol before `connection_init` is closed with the protocol's code, and is
// logged once, as structured information: not printed by graphql-ws as an internal error of ours with a stack
// (issue 33, N11).
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** A client's masked frame (RFC 6455, 5.2) of a short payload, with the first byte given. */
function clientFrame(firstByte: number, payload: Buffer): Buffer {
  const mask = Buffer.from([0x12, 0x34, 0x56, 0x78]);
  const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!));
  return Buffer.concat([Buffer.from([firstByte, 0x80 | payload.length]), mask, masked]);
}

const FIN_TEXT = 0x81;
const RSV1 = 0x40;

const openSockets = async () => (await t.app.metrics.registry.getSingleMetric('paygraph_subscriptions_open')!.get()).values[0]!.value;

/** Opens a graphql-transport-ws socket, writes `frame` on its TCP connection, and says how the server closed it. */
async function closeAfterRawFrame(frame: Buffer): Promise<{ code: number; reason: string }> {
  let tcp: Socket | undefined;
  const socket = new WebSocket(graphqlWsUrl(t.baseUrl), 'graphql-transport-ws', {
    createConnection: ((options: { host: string; port: number }) => (tcp = connect({ host: options.host, port: options.port }))) as never,
  });
  socket.on('error', () => undefined);
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise((resolve) => socket.once('open', resolve));
  tcp!.write(frame);
  return closed;
}

/** What the service writes to stdout, stderr and console.error while `run` runs, and what `run` returned. */
async function captured<T>(run: () => Promise<T>): Promise<{ result: T; stdout: string[]; stderr: string[]; consoleErrors: unknown[][] }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const stdoutWrite = jest
    .spyOn(process.stdout, 'write')
    .mockImplementation((chunk: string | Uint8Array) => stdout.push(String(chunk)) > 0);
  const stderrWrite = jest
    .spyOn(process.stderr, 'write')
    .mockImplementation((chunk: string | Uint8Array) => stderr.push(String(chunk)) > 0);
  const consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    const result = await run();
    return { result, stdout, stderr, consoleErrors: consoleError.mock.calls };
  } finally {
    stdoutWrite.mockRestore();
    stderrWrite.mockRestore();
    consoleError.mockRestore();
  }
}

test.each([
  {
    broken: 'a frame with RSV1 set',
    frame: clientFrame(FIN_TEXT | RSV1, Buffer.from('{}')),
    code: 1002,
    wsCode: 'WS_ERR_UNEXPECTED_RSV_1',
  },
  {
    broken: 'a text frame of invalid UTF-8',
    frame: clientFrame(FIN_TEXT, Buffer.from([0x7b, 0xff, 0xfe, 0x7d])),
    code: 1007,
    wsCode: 'WS_ERR_INVALID_UTF8',
  },
])('$broken before connection_init closes the socket ($code), logged once as information', async ({ frame, code, wsCode }) => {
  const before = await openSockets();
  const { result, stdout, stderr, consoleErrors } = await captured(async () => {
    const closed = await closeAfterRawFrame(frame);
    // The server's side is gone too: any line it would write about the socket is written by now.
    await eventually(async () => (await openSockets()) === before, 'the server to drop the socket');
    return closed;
  });
  expect(result.code).toBe(code);
  expect(stderr).toEqual([]);
  expect(consoleErrors).toEqual([]);
  const lines = stdout.flatMap((chunk) => chunk.split('\n')).filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  expect(JSON.parse(lines[0]!)).toEqual({
    time: expect.any(String),
    level: 'info',
    msg: 'graphql-ws client broke the WebSocket protocol',
    code: wsCode,
    error: expect.any(String),
  });
});
