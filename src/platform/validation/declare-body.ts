import type { Static, TSchema } from 'typebox';
import { AppError, type ErrorDetail } from '../errors/app-error.js';
import type { BodyShape } from '../rest/body-shape.js';
import { compileSchema } from './compiled-schema.js';

export interface BodyDeclaration<S extends TSchema, T> {
  /** What the body is checked as when it is not one: an operation whose fields are all optional reads no body as `{}`. */
  read?: (raw: unknown) => unknown;
  /**
   * Rules about one field each that the schema cannot say. They run whatever the schema found, so every failing
   * field is named at once, and their details join the schema's in the order the fields are declared.
   */
  fieldRules?: (value: Static<S>, details: readonly ErrorDetail[]) => ErrorDetail[];
  /**
   * Rules weighing one field against another; their details follow the others. `schemaDetails`: the fields whose
   * shape is wrong (so their values mean nothing); `details`: every field refused so far.
   */
  crossFieldRules?: (value: Static<S>, schemaDetails: readonly ErrorDetail[], details: readonly ErrorDetail[]) => ErrorDetail[];
  /** The operation's command, from a value that passed every check. */
  toCommand: (value: Static<S>) => T;
}

/** A request body declared once: its schema compiled at start, published as JSON Schema, checked field by field. */
export function declareBody<S extends TSchema, T>(schema: S, declaration: BodyDeclaration<S, T>): BodyShape<T> {
  const compiled = compileSchema(schema);
  return {
    jsonSchema: schema as unknown as Record<string, unknown>,
    parse(raw) {
      const { value, details } = compiled.check(declaration.read ? declaration.read(raw) : raw);
      const fields = compiled.sort([...details, ...(declaration.fieldRules?.(value, details) ?? [])]);
      const all = [...fields, ...(declaration.crossFieldRules?.(value, details, fields) ?? [])];
      if (all.length > 0) throw AppError.validation(all);
      return declaration.toCommand(value);
    },
  };
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
