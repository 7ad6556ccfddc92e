import {
  GraphQLError,
  getOperationAST,
  getVariableValues,
  parse,
  validate,
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLSchema,
  type specifiedRules,
} from 'graphql';
import type { QueryLimits } from '../../config.js';
import { documentTooLarge, parseLimits } from './query-limits.js';

import { controlCharacterError } from './input-text.js';

export const GRAPHQL_WS_PATH = '/graphql';

/**
 * Only subscriptions travel over the socket: queries and mutations go to POST /graphql, where idempotency,
 * request logs and CSRF prevention live. The graph's limits apply here as on HTTP.
 */
export function prepareOperation(
  schema: GraphQLSchema,
  rules: typeof specifiedRules,
  limits: QueryLimits,
  query: string,
  operationName: string | undefined,
  variableValues: Record<string, unknown> | undefined,
): ExecutionArgs | readonly GraphQLError[] {
  const tooLarge = documentTooLarge(query, limits);
  if (tooLarge) return [tooLarge];
  let document: DocumentNode;
  try {
    document = parse(query, parseLimits(limits));
  } catch (error) {
    if (error instanceof GraphQLError) return [withCode(error, 'GRAPHQL_PARSE_FAILED')];
    throw error;
  }
  const errors = validate(schema, document, rules);
  if (errors.length > 0) return errors.map((error) => withCode(error, 'GRAPHQL_VALIDATION_FAILED'));
  const operation = getOperationAST(document, operationName);
  if (!operation) return [new GraphQLError('Name the operation to run', { extensions: { code: 'BAD_USER_INPUT' } })];
  if (operation.operation !== 'subscription') {
    return [
      new GraphQLError(`Send ${operation.operation} operations to POST ${GRAPHQL_WS_PATH}; the socket serves subscriptions`, {
        extensions: { code: 'BAD_REQUEST' },
      }),
    ];
  }
  // Coerced here, as Apollo does before executing, so a bad variable is refused like a bad document, with the
  // code HTTP gives it, instead of surfacing later as a bare execution error.
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variableValues ?? {});
  if (coerced.errors) return coerced.errors.map((error) => withCode(error, 'BAD_USER_INPUT'));
  const controlCharacters = controlCharacterError(document, variableValues);
  if (controlCharacters) {
    // HTTP's status is for Apollo; the socket has none to give.
    const { http: _status, ...extensions } = controlCharacters.extensions;
    return [new GraphQLError(controlCharacters.message, { extensions })];
  }
  return { schema, document, operationName, variableValues };
}

/** The codes Apollo Server gives the same failures on POST /graphql, so a client handles both faces alike. */
function withCode(error: GraphQLError, code: 'GRAPHQL_PARSE_FAILED' | 'GRAPHQL_VALIDATION_FAILED' | 'BAD_USER_INPUT'): GraphQLError {
  return new GraphQLError(error.message, { nodes: error.nodes, source: error.source, positions: error.positions, extensions: { code } });
}
