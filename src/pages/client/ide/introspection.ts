import { getIntrospectionQuery } from 'graphql';

/**
 * The graph caps query depth (12), and the standard introspection query nests `ofType` nine levels deep to reach
 * any wrapped type, which passes the cap. Our schema wraps types at most three times (`[X!]!`), so four levels of
 * `ofType` describe every type it has, within the cap.
 */
const TYPE_REF = `fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } }
}`;

export function shallowIntrospectionQuery(): string {
  const standard = getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true });
  const start = standard.indexOf('fragment TypeRef on __Type');
  if (start < 0) return standard;
  return `${standard.slice(0, start)}${TYPE_REF}\n`;
}
