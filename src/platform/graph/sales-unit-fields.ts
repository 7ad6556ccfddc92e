import {
  GraphQLError,
  Kind,
  getNamedType,
  isAbstractType,
  isInterfaceType,
  isObjectType,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { salesUnitRequired } from '../auth/tenancy-scope.js';

/** `Type.field` of every field declared `@salesUnit` in the SDL, read once per schema. */
const declared = new WeakMap<GraphQLSchema, ReadonlySet<string>>();
/** Whether an operation selects one, read once per parsed operation (Apollo Server keeps documents per text). */
const needs = new WeakMap<OperationDefinitionNode, boolean>();

/**
 * Whether the operation selects, anywhere (through fragments, and a field of an interface any of whose types declares
 * it), a field declared `@salesUnit`: one that acts for one sales unit. The admission refuses such an operation when
 * the request names none, so those fields' resolvers are typed with the narrowed scope (codegen.ts).
 */
export function needsSalesUnit(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode): boolean {
  let answer = needs.get(operation);
  if (answer === undefined) {
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    const walk = { schema, fields: salesUnitFields(schema), fragments, seen: new Set<string>() };
    answer = selects(walk, schema.getRootType(operation.operation) ?? undefined, operation.selectionSet);
    needs.set(operation, answer);
  }
  return answer;
}

/** The admission's answer to such an operation without a sales unit: the 400 that REST answers, naming the header. */
export function salesUnitRequiredError(): GraphQLError {
  const refusal = salesUnitRequired();
  return new GraphQLError(refusal.message, {
    extensions: { code: 'BAD_REQUEST', details: refusal.details, http: { status: refusal.status } },
  });
}

interface Walk {
  schema: GraphQLSchema;
  fields: ReadonlySet<string>;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  /** Fragments walked already: a fragment's answer depends only on its type condition. */
  seen: Set<string>;
}

function selects(walk: Walk, type: GraphQLNamedType | undefined, set: SelectionSetNode): boolean {
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) {
      if (!type || !(isObjectType(type) || isInterfaceType(type))) continue;
      const field = type.getFields()[selection.name.value];
      if (!field) continue; // __typename and the introspection fields
      if (declaresSalesUnit(walk, type, field.name)) return true;
      if (selection.selectionSet && selects(walk, getNamedType(field.type), selection.selectionSet)) return true;
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      const narrowed = selection.typeCondition ? walk.schema.getType(selection.typeCondition.name.value) : type;
      if (selects(walk, narrowed, selection.selectionSet)) return true;
    } else {
      const fragment = walk.fragments.get(selection.name.value);
      if (!fragment || walk.seen.has(fragment.name.value)) continue;
      walk.seen.add(fragment.name.value);
      if (selects(walk, walk.schema.getType(fragment.typeCondition.name.value), fragment.selectionSet)) return true;
    }
  }
  return false;
}

function declaresSalesUnit(walk: Walk, type: GraphQLNamedType, field: string): boolean {
  if (walk.fields.has(`${type.name}.${field}`)) return true;
  return isAbstractType(type) && walk.schema.getPossibleTypes(type).some((possible) => walk.fields.has(`${possible.name}.${field}`));
}

function salesUnitFields(schema: GraphQLSchema): ReadonlySet<string> {
  let fields = declared.get(schema);
  if (!fields) {
    const found = new Set<string>();
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) && !isInterfaceType(type)) continue;
      for (const field of Object.values(type.getFields())) {
        if (field.astNode?.directives?.some((d) => d.name.value === 'salesUnit')) found.add(`${type.name}.${field.name}`);
      }
    }
    declared.set(schema, (fields = found));
  }
  return fields;
}
