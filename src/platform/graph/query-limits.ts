import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type FieldNode,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { defaultQueryLimits, type QueryLimits } from '../../config.js';
import { MAX_PAGE_SIZE } from './relay.js';

/** A list field without `first` is assumed to return a default page. */
const DEFAULT_PAGE = 50;

interface Measure {
  depth: number;
  aliases: number;
  cost: number;
}

/**
 * Rejects an operation that is too deep, uses too many aliases or could cost too much, during validation, so
 * no resolver runs. Page sizes given as variables count as the largest page, since validation cannot see them.
 */
export function queryLimitRules(limits: QueryLimits = defaultQueryLimits): ValidationRule[] {
  return [
    (context: ValidationContext): ASTVisitor => ({
      OperationDefinition(operation) {
        const fragments = new Map<string, FragmentDefinitionNode>();
        for (const definition of context.getDocument().definitions) {
          if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
        }
        const measure = measureSelection(operation.selectionSet, fragments, new Set());
        const report = (message: string, code: string) =>
          context.reportError(new GraphQLError(message, { nodes: [operation], extensions: { code } }));
        if (measure.depth > limits.maxDepth)
          report(`Query depth ${measure.depth} exceeds the limit of ${limits.maxDepth}`, 'QUERY_TOO_DEEP');
        if (measure.aliases > limits.maxAliases)
          report(`${measure.aliases} aliases exceed the limit of ${limits.maxAliases}`, 'TOO_MANY_ALIASES');
        if (measure.cost > limits.maxCost) report(`Query cost ${measure.cost} exceeds the limit of ${limits.maxCost}`, 'QUERY_TOO_COSTLY');
      },
    }),
  ];
}

function measureSelection(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, visiting: Set<string>): Measure {
  const total: Measure = { depth: 0, aliases: 0, cost: 0 };
  const add = (m: Measure) => {
    total.depth = Math.max(total.depth, m.depth);
    total.aliases += m.aliases;
    total.cost += m.cost;
  };
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) add(measureField(selection, fragments, visiting));
    else if (selection.kind === Kind.INLINE_FRAGMENT) add(measureSelection(selection.selectionSet, fragments, visiting));
    else {
      const name = selection.name.value;
      const fragment = fragments.get(name);
      // A fragment cycle is reported by graphql's own NoFragmentCycles rule; here it just stops the walk.
      if (!fragment || visiting.has(name)) continue;
      visiting.add(name);
      add(measureSelection(fragment.selectionSet, fragments, visiting));
      visiting.delete(name);
    }
  }
  return total;
}

function measureField(field: FieldNode, fragments: Map<string, FragmentDefinitionNode>, visiting: Set<string>): Measure {
  const aliases = field.alias ? 1 : 0;
  if (!field.selectionSet) return { depth: 1, aliases, cost: 1 };
  const child = measureSelection(field.selectionSet, fragments, visiting);
  return { depth: child.depth + 1, aliases: aliases + child.aliases, cost: 1 + pageSizeOf(field) * child.cost };
}

function pageSizeOf(field: FieldNode): number {
  const first = field.arguments?.find((a) => a.name.value === 'first');
  if (!first) return field.name.value === 'edges' || !isPaged(field) ? 1 : DEFAULT_PAGE;
  if (first.value.kind === Kind.INT) return Math.max(1, Math.min(Number(first.value.value), MAX_PAGE_SIZE));
  return MAX_PAGE_SIZE;
}

/** Connections are recognised by their `edges` selection. */
function isPaged(field: FieldNode): boolean {
  return Boolean(field.selectionSet?.selections.some((s) => s.kind === Kind.FIELD && s.name.value === 'edges'));
}
