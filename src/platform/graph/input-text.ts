import { GraphQLError, visit, type DocumentNode } from 'graphql';
import type { ErrorDetail } from '../errors/app-error.js';
import { CONTROL_CHARACTER_REASON, controlCharacterDetails, hasControlCharacter } from '../validation/control-characters.js';

/**
 * The graph's check of its input text, the rule the REST face applies where input enters: no string in the
 * variables or written in the document (`"\u0000"` is a valid GraphQL escape) may carry a control character. It runs
 * after validation and before any resolver, over HTTP and the socket alike: one BAD_USER_INPUT error whose details name
 * each field (a variable as `$input.reference`, a literal by its argument path).
 */
export function controlCharacterError(document: DocumentNode, variables: Record<string, unknown> | undefined): GraphQLError | undefined {
  const details: ErrorDetail[] = controlCharacterDetails(variables ?? {}, '').map((d) => ({ ...d, name: `$${d.name}` }));
  const path: string[] = [];
  visit(document, {
    Argument: { enter: (node) => void path.push(node.name.value), leave: () => void path.pop() },
    ObjectField: { enter: (node) => void path.push(node.name.value), leave: () => void path.pop() },
    StringValue: (node) => {
      if (hasControlCharacter(node.value)) details.push({ name: path.join('.') || 'document', reason: CONTROL_CHARACTER_REASON });
    },
  });
  if (details.length === 0) return undefined;
  return new GraphQLError(details.map((d) => `${d.name}: ${d.reason}`).join('; '), {
    extensions: { code: 'BAD_USER_INPUT', http: { status: 400 }, details },
  });
}
