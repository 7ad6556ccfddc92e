import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { defaultQueryLimits, type QueryLimits } from '../../config.js';
import { MAX_PAGE_SIZE } from './relay.js';

/** A list field without `first` is assumed to return a default page. */
const DEFAULT_PAGE = 50;

export interface Measure {
  depth: number;
  aliases: number;
  cost: number;
}

/** The introspection entry points; `__typename` is a plain leaf and counts like one. */
const INTROSPECTION_FIELDS = new Set(['__schema', '__type']);

export interface QueryLimitOptions {
  /**
   * Where introspection is allowed (the test environment) its fields are not measured: the standard introspection
   * query every tool sends (graphql-js `getIntrospectionQuery()`, depth 15) is bounded by the schema, not by the
   * client. Where it is refused (production) they are measured like any field, and the refusal is another rule's.
   */
  introspectionAllowed?: boolean;
}

/**
 * The cost of each operation of a validated document, kept with the document itself: Apollo caches a parsed and
 * validated document and hands the same object back for the same query text, so the rate limiter charges an
 * operation its cost without measuring it again.
 */
const measuredCosts = new WeakMap<DocumentNode, Map<string, number>>();

/** The cost the limits measured for an operation of this document (undefined: the document was not measured). */
export function costOf(document: DocumentNode, operationName: string | undefined): number | undefined {
  return measuredCosts.get(document)?.get(operationName ?? '');
}

/**
 * The document caps checked before anything walks it: its size in bytes here, its token count by graphql-js's
 * parser (`parseOptions`), so a document too big to be worth measuring is refused for its size alone.
 */
export function documentTooLarge(query: unknown, limits: QueryLimits = defaultQueryLimits): GraphQLError | undefined {
  if (typeof query !== 'string' || Buffer.byteLength(query) <= limits.maxDocumentBytes) return undefined;
  return new GraphQLError(`The document is larger than ${limits.maxDocumentBytes} bytes`, {
    extensions: { code: 'DOCUMENT_TOO_LARGE', http: { status: 400 } },
  });
}

/** graphql-js stops parsing past this many tokens: one setting for Apollo's parser and the socket's. */
export function parseLimits(limits: QueryLimits = defaultQueryLimits): { maxTokens: number } {
  return { maxTokens: limits.maxTokens };
}

/**
 * Rejects an operation that is too deep, uses too many aliases or could cost too much, during validation, so
 * no resolver runs. Page sizes given as variables count as the largest page, since validation cannot see them.
 * The walk is linear in the document: each fragment is measured once and its measure reused at every spread, so
 * fragments that spread the next one twice cost one walk per fragment, not 2^n.
 */
export function queryLimitRules(limits: QueryLimits = defaultQueryLimits, options: QueryLimitOptions = {}): ValidationRule[] {
  const skipped = options.introspectionAllowed ? INTROSPECTION_FIELDS : new Set<string>();
  return [
    (context: ValidationContext): ASTVisitor => {
      const document = context.getDocument();
      const walk = newWalk(document, skipped);
      return {
        OperationDefinition(operation) {
          const measure = measureSelection(operation.selectionSet, walk);
          rememberCost(document, operation, measure.cost);
          const report = (message: string, code: string) =>
            context.reportError(new GraphQLError(message, { nodes: [operation], extensions: { code } }));
          if (measure.depth > limits.maxDepth)
            report(`Query depth ${measure.depth} exceeds the limit of ${limits.maxDepth}`, 'QUERY_TOO_DEEP');
          if (measure.aliases > limits.maxAliases)
            report(`${measure.aliases} aliases exceed the limit of ${limits.maxAliases}`, 'TOO_MANY_ALIASES');
          if (measure.cost > limits.maxCost)
            report(`Query cost ${formatCost(measure.cost)} exceeds the limit of ${limits.maxCost}`, 'QUERY_TOO_COSTLY');
        },
      };
    },
  ];
}

/**
 * Measures every operation of a document as the rules do, and says how many times a fragment's selections were
 * walked (each fragment at most once).
 */
export function measureDocument(
  document: DocumentNode,
  options: QueryLimitOptions = {},
): { operations: Map<string, Measure>; fragmentWalks: number } {
  const walk = newWalk(document, options.introspectionAllowed ? INTROSPECTION_FIELDS : new Set());
  const operations = new Map<string, Measure>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) {
      operations.set(definition.name?.value ?? '', measureSelection(definition.selectionSet, walk));
    }
  }
  return { operations, fragmentWalks: walk.fragmentWalks };
}

function rememberCost(document: DocumentNode, operation: OperationDefinitionNode, cost: number): void {
  let costs = measuredCosts.get(document);
  if (!costs) measuredCosts.set(document, (costs = new Map()));
  costs.set(operation.name?.value ?? '', cost);
}

/** Past 2^53 a cost is no longer an exact integer; it is refused either way. */
function formatCost(cost: number): string {
  return Number.isSafeInteger(cost) ? String(cost) : cost.toExponential(2);
}

interface Walk {
  fragments: Map<string, FragmentDefinitionNode>;
  /** Fields not measured, with everything below them. */
  skipped: ReadonlySet<string>;
  /** Each fragment's measure, computed at its first spread and reused at every other. */
  measured: Map<string, Measure>;
  /** Fragments being measured: a spread of one of them is a cycle. */
  visiting: Set<string>;
  fragmentWalks: number;
}

function newWalk(document: DocumentNode, skipped: ReadonlySet<string>): Walk {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return { fragments, skipped, measured: new Map(), visiting: new Set(), fragmentWalks: 0 };
}

const NOTHING: Measure = { depth: 0, aliases: 0, cost: 0 };

function measureSelection(selectionSet: SelectionSetNode, walk: Walk): Measure {
  const total: Measure = { depth: 0, aliases: 0, cost: 0 };
  const add = (m: Measure) => {
    total.depth = Math.max(total.depth, m.depth);
    total.aliases += m.aliases;
    total.cost += m.cost;
  };
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (!walk.skipped.has(selection.name.value)) add(measureField(selection, walk));
    } else if (selection.kind === Kind.INLINE_FRAGMENT) add(measureSelection(selection.selectionSet, walk));
    else add(measureFragment(selection.name.value, walk));
  }
  return total;
}

function measureFragment(name: string, walk: Walk): Measure {
  const known = walk.measured.get(name);
  if (known) return known;
  const fragment = walk.fragments.get(name);
  // A fragment cycle is reported by graphql's own NoFragmentCycles rule; here it just stops the walk.
  if (!fragment || walk.visiting.has(name)) return NOTHING;
  walk.visiting.add(name);
  walk.fragmentWalks++;
  const measure = measureSelection(fragment.selectionSet, walk);
  walk.visiting.delete(name);
  walk.measured.set(name, measure);
  return measure;
}

function measureField(field: FieldNode, walk: Walk): Measure {
  const aliases = field.alias ? 1 : 0;
  if (!field.selectionSet) return { depth: 1, aliases, cost: 1 };
  const child = measureSelection(field.selectionSet, walk);
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
