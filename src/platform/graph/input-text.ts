import { GraphQLError, visit, type DocumentNode } from 'graphql';
import type { ErrorDetail } from '../errors/app-error.js';
import { CONTROL_CHARACTER_REASON, controlCharacterDetails, hasControlCharacter } from '../validation/control-characters.js';

/**
 * The strings written in a document are the document's own: their verdict is kept with the parsed document, which
 * the transports keep per query text (Apollo Server's document cache), so a repeated query is not walked again.
 */
const literalVerdicts = new WeakMap<DocumentNode, readonly ErrorDetail[]>();

/**
 * The graph's check of its input text, the rule the REST face applies where input enters: no string in the
 * variables or written in the document (`"\u0000"` is a valid GraphQL escape) may carry a control character. It runs
 * after validation and before any resolver, over HTTP and the socket alike: one BAD_USER_INPUT error whose details name
 * each field (a variable as `$input.reference`, a literal by its argument path).
 */
export function controlCharacterError(document: DocumentNode, variables: Record<string, unknown> | undefined): GraphQLError | undefined {
  const literals = literalDetails(document);
  const inVariables = variables === undefined ? [] : controlCharacterDetails(variables, '');
  if (literals.length === 0 && inVariables.length === 0) return undefined;
  const details: ErrorDetail[] = [...inVariables.map((d) => ({ ...d, name: `$${d.name}` })), ...literals];
  return new GraphQLError(details.map((d) => `${d.name}: ${d.reason}`).join('; '), {
    extensions: { code: 'BAD_USER_INPUT', http: { status: 400 }, details },
  });
}

function literalDetails(document: DocumentNode): readonly ErrorDetail[] {
  const known = literalVerdicts.get(document);
  if (known) return known;
  const details: ErrorDetail[] = [];
  const path: string[] = [];
  visit(document, {
    Argument: { enter: (node) => void path.push(node.name.value), leave: () => void path.pop() },
    ObjectField: { enter: (node) => void path.push(node.name.value), leave: () => void path.pop() },
    StringValue: (node) => {
      if (hasControlCharacter(node.value)) details.push({ name: path.join('.') || 'document', reason: CONTROL_CHARACTER_REASON });
    },
  });
  literalVerdicts.set(document, details);
  return details;
}
