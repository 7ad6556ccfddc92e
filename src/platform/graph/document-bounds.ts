import { GraphQLError, Kind, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import type { QueryLimits } from '../../config.js';

/**
 * The work a document may ask of validation, bounded before validation runs (issue 33, N3). graphql-js's
 * OverlappingFieldsCanBeMerged rule compares every pair of fields that share a response name in a selection set,
 * with their sub-selections: `{ viewer { kind } … }` 740 times (11.8 KB, 2,962 tokens, within the byte and token
 * caps) took 80 ms to 1.1 s to validate, while other clients waited. So, walking the document as execution merges it
 * (fields by response name, fragments expanded where they are spread, each fragment once per selection set as
 * CollectFields does), a document is refused when
 * - more than `maxRepeatedSelections` fields with selections of their own share one response name in one merged
 *   selection set (leaf fields compare cheaply: 1,000 times `__typename` validates in a few ms), or
 * - the walk meets more than `maxFields` selections, which also stops the walk itself: fragments spread under
 *   different fields expand each time, so the walk is bounded by the cap, not by the document.
 * Within both, validation compares at most about maxRepeatedSelections / 2 × maxFields pairs.
 */
export function documentBoundsError(document: DocumentNode, limits: QueryLimits): GraphQLError | undefined {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const walk: BoundsWalk = { fragments, limits, selections: 0 };
  try {
    for (const definition of document.definitions) {
      if (definition.kind === Kind.OPERATION_DEFINITION) checkMerged([definition.selectionSet], walk);
    }
    return undefined;
  } catch (error) {
    if (error instanceof GraphQLError) return error;
    throw error;
  }
}

interface BoundsWalk {
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  limits: QueryLimits;
  selections: number;
}

/** The selection sets of fields merged under one response name, checked as one set, then each merged group below it. */
function checkMerged(sets: readonly SelectionSetNode[], walk: BoundsWalk): void {
  const groups = new Map<string, FieldNode[]>();
  const spread = new Set<string>();
  const collect = (set: SelectionSetNode): void => {
    for (const selection of set.selections) {
      if (++walk.selections > walk.limits.maxFields) throw tooManyFields(walk.limits.maxFields);
      if (selection.kind === Kind.FIELD) {
        if (!selection.selectionSet) continue;
        const name = selection.alias?.value ?? selection.name.value;
        let group = groups.get(name);
        if (!group) groups.set(name, (group = []));
        group.push(selection);
        if (group.length > walk.limits.maxRepeatedSelections) throw repeated(name, walk.limits.maxRepeatedSelections);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet);
      else if (!spread.has(selection.name.value)) {
        spread.add(selection.name.value);
        const fragment = walk.fragments.get(selection.name.value);
        // An unknown fragment is validation's to report.
        if (fragment) collect(fragment.selectionSet);
      }
    }
  };
  for (const set of sets) collect(set);
  for (const group of groups.values())
    checkMerged(
      group.map((field) => field.selectionSet!),
      walk,
    );
}

function tooManyFields(max: number): GraphQLError {
  return new GraphQLError(`The document selects more than ${max} fields (a fragment counts each time it is spread)`, {
    extensions: { code: 'DOCUMENT_TOO_COMPLEX', http: { status: 400 } },
  });
}

function repeated(name: string, max: number): GraphQLError {
  return new GraphQLError(
    `The document selects "${name}" with a selection of its own more than ${max} times in one selection set; select it once`,
    { extensions: { code: 'DOCUMENT_TOO_COMPLEX', http: { status: 400 } } },
  );
}
