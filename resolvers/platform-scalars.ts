import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { DATE_TIME_REASON, storableDateTime } from '../src/platform/validation/storable-time.js';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

function minorUnits(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || Math.abs(value) > MAX_SAFE) {
    throw new GraphQLError('MinorUnits must be an integer number of minor units', { extensions: { code: 'BAD_USER_INPUT' } });
  }
  return value;
}

export const MinorUnits = new GraphQLScalarType({
  name: 'MinorUnits',
  serialize: minorUnits,
  parseValue: minorUnits,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.INT) throw new GraphQLError('MinorUnits must be an integer literal', { extensions: { code: 'BAD_USER_INPUT' } });
    return minorUnits(Number(ast.value));
  },
});

/** An instant the database can store, as its ISO string (so the database parses one form only). */
function dateTime(value: unknown): string {
  const time = typeof value === 'string' ? storableDateTime(value) : undefined;
  if (!time) throw new GraphQLError(`DateTime: ${DATE_TIME_REASON}`, { extensions: { code: 'BAD_USER_INPUT' } });
  return time.toISOString();
}

/**
 * Variables are checked here; a value written in the document is checked, naming its field, by the validation rule
 * every face runs (storable-times.ts), so it is only read here: two refusals of one value would say it twice.
 */
export const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  serialize: (value) => (value instanceof Date ? value.toISOString() : String(value)),
  parseValue: dateTime,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string', { extensions: { code: 'BAD_USER_INPUT' } });
    return storableDateTime(ast.value)?.toISOString() ?? ast.value;
  },
});
