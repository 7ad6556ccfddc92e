/** A request body's declared shape: its JSON Schema (for the OpenAPI document) and a parser that names every failing field. */
export interface BodyShape<T> {
  readonly jsonSchema: Record<string, unknown>;
  /** Throws AppError.validation with one detail per failing field. */
  parse(raw: unknown): T;
}
