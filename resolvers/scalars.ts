import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';

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

function dateTime(value: unknown): string {
  const date = value instanceof Date ? value : typeof value === 'string' ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime()))
    throw new GraphQLError('DateTime must be an ISO 8601 date-time', { extensions: { code: 'BAD_USER_INPUT' } });
  return typeof value === 'string' ? value : date.toISOString();
}

export const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  serialize: (value) => (value instanceof Date ? value.toISOString() : dateTime(value)),
  parseValue: dateTime,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new GraphQLError('DateTime must be a string', { extensions: { code: 'BAD_USER_INPUT' } });
    return dateTime(ast.value);
  },
});
