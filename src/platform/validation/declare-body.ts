import type { Static, TSchema } from 'typebox';
import { AppError, type ErrorDetail } from '../errors/app-error.js';
import type { BodyShape } from '../rest/body-shape.js';
import { compileSchema } from './compiled-schema.js';

export interface BodyDeclaration<S extends TSchema, T> {
  /** What the body is checked as when it is not one: an operation whose fields are all optional reads no body as `{}`. */
  read?: (raw: unknown) => unknown;
  /**
   * Rules the schema cannot say (one field against another), run whatever the schema found so every failing field
   * is named at once: they see the checked value and the details so far, and add theirs.
   */
  refine?: (value: Static<S>, details: ErrorDetail[]) => void;
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
      declaration.refine?.(value, details);
      if (details.length > 0) throw AppError.validation(details);
      return declaration.toCommand(value);
    },
  };
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
