/** @database-free (code and files only, no database: CI runs this file in one pass, jest.config.js) */
import { connectionFrom, mapNodes } from '../../src/platform/graph/relay.js';

// A cursor is signed (an HMAC each): a connection makes one only when a client selects it (an edge's `cursor`, or
// `pageInfo`'s start and end), once, so a page whose query selects no cursor signs none.

function signingCounted(): { cursorOf: (row: number) => string; signed: number[] } {
  const signed: number[] = [];
  return { signed, cursorOf: (row) => (signed.push(row), `cursor-${row}`) };
}

test('a connection signs no cursor until one is read, and each once', () => {
  const { cursorOf, signed } = signingCounted();
  const connection = connectionFrom([1, 2, 3, 4], 3, cursorOf, false);
  expect(connection.edges.map((edge) => edge.node)).toEqual([1, 2, 3]);
  expect(connection.pageInfo.hasNextPage).toBe(true);
  expect(signed).toEqual([]);
  expect(connection.edges[1]!.cursor).toBe('cursor-2');
  expect(connection.edges[1]!.cursor).toBe('cursor-2');
  expect(signed).toEqual([2]);
  expect([connection.pageInfo.startCursor, connection.pageInfo.endCursor]).toEqual(['cursor-1', 'cursor-3']);
  expect(signed).toEqual([2, 1, 3]);
});

test('an empty page has no start or end cursor', () => {
  const { cursorOf, signed } = signingCounted();
  const connection = connectionFrom([], 3, cursorOf, true);
  expect(connection.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: true, startCursor: null, endCursor: null });
  expect(signed).toEqual([]);
});

test('mapped nodes keep their edges\u2019 cursors, still signed on demand', () => {
  const { cursorOf, signed } = signingCounted();
  const connection = mapNodes(connectionFrom([1, 2], 5, cursorOf, false), (n) => ({ n }));
  expect(connection.edges.map((edge) => edge.node)).toEqual([{ n: 1 }, { n: 2 }]);
  expect(signed).toEqual([]);
  expect(connection.edges.map((edge) => edge.cursor)).toEqual(['cursor-1', 'cursor-2']);
  expect(connection.pageInfo.endCursor).toBe('cursor-2');
  expect(signed).toEqual([1, 2]);
});
