import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { ErrorDetail } from '../errors/app-error.js';
import { errorDetails, sortByDeclaration } from './error-details.js';

/** A schema compiled once, checking a value and naming every failing field as a dotted path (`amount.value`). */
export interface CompiledSchema<S extends TSchema> {
  readonly schema: S;
  /**
   * The value with `null` dropped wherever the schema declares a property (clients send null for "absent"),
   * and one detail per failing field, in the order the schema declares them. `value` is only trustworthy
   * when `details` is empty.
   */
  check(raw: unknown, at?: string): { value: Static<S>; details: ErrorDetail[] };
  /** Puts details (the schema's and those of rules about single fields) in the order the schema declares the fields. */
  sort(details: ErrorDetail[], at?: string): ErrorDetail[];
}

export function compileSchema<S extends TSchema>(schema: S): CompiledSchema<S> {
  const validator = Compile(schema);
  return {
    schema,
    check(raw, at = '') {
      const value = dropDeclaredNulls(schema, raw);
      const details = validator.Check(value) ? [] : errorDetails(schema, validator.Errors(value), at);
      return { value: value as Static<S>, details };
    },
    sort: (details, at = '') => sortByDeclaration(schema, details, at),
  };
}

/** Where the schema names a property, `null` (and, in process, `undefined`) means absent, as clients mean it. */
function dropDeclaredNulls(schema: TSchema, value: unknown): unknown {
  const node = schema as { properties?: Record<string, TSchema>; items?: TSchema };
  if (Array.isArray(value)) return node.items ? value.map((item) => dropDeclaredNulls(node.items!, item)) : value;
  if (typeof value !== 'object' || value === null || !node.properties) return value;
  const kept: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const property = node.properties[key];
    if (property && (item === null || item === undefined)) continue;
    kept[key] = property ? dropDeclaredNulls(property, item) : item;
  }
  return kept;
}
