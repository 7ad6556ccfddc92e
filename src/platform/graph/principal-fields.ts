import {
  GraphQLError,
  Kind,
  type DocumentNode,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { Principal, PrincipalKind } from '../auth/principal.js';

/** Root fields without `@principals` serve the merchant-facing principals (schema/platform-common.graphql). */
const DEFAULT_KINDS: readonly PrincipalKind[] = ['merchant', 'partner'];

const KIND_OF_ENUM: Record<string, PrincipalKind> = {
  MERCHANT: 'merchant',
  PARTNER: 'partner',
  PSP: 'psp',
  OPERATOR: 'operator',
  WALLET: 'wallet',
};

/** The kinds of principal each root field serves, read once from the SDL's `@principals(kinds: [...])`. */
const servedKinds = new WeakMap<GraphQLSchema, Map<string, readonly PrincipalKind[]>>();

/**
 * The root fields (fragments at the root followed) that the operation selects and the principal may not: a PSP's
 * token reaches only the fields declared for PSPs, the operator's only the operator's, and no one else reaches
 * those. `__typename` at the root has no declaration and serves the default kinds, as does a fragment spread when
 * the document it names is not given.
 */
export function refusedRootFields(
  schema: GraphQLSchema,
  principal: Pick<Principal, 'kind'>,
  operation: OperationDefinitionNode,
  document?: DocumentNode,
): string[] {
  const { kind } = principal;
  const served = kindsByField(schema);
  const root = schema.getRootType(operation.operation)?.name ?? '';
  const refused = new Set<string>();
  for (const name of rootFieldNames(document, operation.selectionSet)) {
    if (!(served.get(`${root}.${name}`) ?? DEFAULT_KINDS).includes(kind)) refused.add(name);
  }
  return [...refused];
}

export function forbiddenFieldsError(fields: readonly string[]): GraphQLError {
  return new GraphQLError(`These credentials may not use ${fields.join(', ')}`, {
    extensions: { code: 'FORBIDDEN', http: { status: 403 } },
  });
}

/** By `Root.field`. */
function kindsByField(schema: GraphQLSchema): Map<string, readonly PrincipalKind[]> {
  let byRoot = servedKinds.get(schema);
  if (!byRoot) {
    byRoot = new Map();
    for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
      for (const field of Object.values(root?.getFields() ?? {})) {
        const kinds = declaredKinds(field);
        if (kinds) byRoot.set(`${root!.name}.${field.name}`, kinds);
      }
    }
    servedKinds.set(schema, byRoot);
  }
  return byRoot;
}

function declaredKinds(field: GraphQLField<unknown, unknown>): readonly PrincipalKind[] | undefined {
  const directive = field.astNode?.directives?.find((d) => d.name.value === 'principals');
  const kinds = directive?.arguments?.find((a) => a.name.value === 'kinds')?.value;
  if (!kinds) return undefined;
  const values = kinds.kind === Kind.LIST ? kinds.values : [kinds];
  return values.flatMap((v) => (v.kind === Kind.ENUM && KIND_OF_ENUM[v.value] ? [KIND_OF_ENUM[v.value]!] : []));
}

/** The names of the root fields a selection set selects, through inline fragments and fragment spreads. */
function rootFieldNames(document: DocumentNode | undefined, set: SelectionSetNode, seen = new Set<string>()): string[] {
  const names: string[] = [];
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) names.push(selection.name.value);
    else if (selection.kind === Kind.INLINE_FRAGMENT) names.push(...rootFieldNames(document, selection.selectionSet, seen));
    else if (!document) names.push('(fragment)');
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = document.definitions.find((d) => d.kind === Kind.FRAGMENT_DEFINITION && d.name.value === selection.name.value);
      if (fragment?.kind === Kind.FRAGMENT_DEFINITION) names.push(...rootFieldNames(document, fragment.selectionSet, seen));
    }
  }
  return names;
}
