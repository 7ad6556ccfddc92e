import { buildSchema, specifiedRules } from 'graphql';
import { PreparedDocuments } from '../../src/platform/graph/prepared-documents.js';

const schema = buildSchema('type Query { a: Int, b: Int, c: Int }');

test('documents are kept by their text, refused ones as refused, within the limits on entries and on text', () => {
  const documents = new PreparedDocuments(schema, specifiedRules, { maxTokens: 100 }, { entries: 2, characters: 1_000 });
  const first = documents.get('{ a }');
  expect(first.valid).toBe(true);
  expect(documents.get('{ a }')).toBe(first);
  expect(documents.get('{ nope }')).toEqual({ valid: false });
  expect(documents.get('{ nope }')).toEqual({ valid: false });
  expect(documents.get('{ a')).toEqual({ valid: false });
  // Two entries at most: the least recently used went first.
  expect(documents.size).toBe(2);
  expect(documents.get('{ a }')).not.toBe(first);
  expect(documents.get('{ a }').valid).toBe(true);

  const small = new PreparedDocuments(schema, specifiedRules, { maxTokens: 100 }, { entries: 100, characters: 12 });
  small.get('{ a }');
  small.get('{ b }');
  small.get('{ c }');
  expect(small.size).toBe(2);
});

test('the parse limits apply: a document past the token cap is refused', () => {
  const documents = new PreparedDocuments(schema, specifiedRules, { maxTokens: 5 }, { entries: 10, characters: 1_000 });
  expect(documents.get('{ a b }').valid).toBe(true);
  expect(documents.get('{ a b c a b c }').valid).toBe(false);
});
