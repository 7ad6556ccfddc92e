/** The names of a path pattern's `{name}` segments, e.g. `reference` of `/payments/{reference}/capture`. */
export type ParamName<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | ParamName<Rest> : never;

/** A route's path parameters, typed by its pattern, so a handler never asserts that one exists. */
export type PathParams<P extends string> = { readonly [K in ParamName<P>]: string };

/** A check of one path parameter, done before the body is read; its JSON Schema goes into the OpenAPI document. */
export interface ParamRule {
  accepts(value: string): boolean;
  reason: string;
  jsonSchema: Record<string, unknown>;
}
