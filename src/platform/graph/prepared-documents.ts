import { parse, validate, type DocumentNode, type GraphQLSchema, type ParseOptions, type ValidationRule } from 'graphql';

export type PreparedDocument = { valid: true; document: DocumentNode } | { valid: false };

const REFUSED: PreparedDocument = { valid: false };

export interface PreparedDocumentLimits {
  /** Documents kept at most. */
  entries: number;
  /** Query text kept at most, in characters: a document's tree is a small multiple of its text. */
  characters: number;
}

const DEFAULT_LIMITS: PreparedDocumentLimits = { entries: 1_000, characters: 2_000_000 };

/**
 * Parsed and validated documents by their query text, least recently used first out. Clients send the same few
 * documents with new variables, so parsing and validating (the query limits' walk included) happen once per text;
 * a refused document is remembered as refused, so it is not parsed again either. The verdict depends on the text
 * alone (schema, rules and parse limits are fixed for the process); anything that depends on the caller or the
 * variables is checked per request.
 */
export class PreparedDocuments {
  private readonly entries = new Map<string, PreparedDocument>();
  private characters = 0;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly rules: readonly ValidationRule[],
    private readonly parseOptions: ParseOptions,
    private readonly limits: PreparedDocumentLimits = DEFAULT_LIMITS,
  ) {}

  get(query: string): PreparedDocument {
    const known = this.entries.get(query);
    if (known) {
      // Most recently used last: Map keeps insertion order.
      this.entries.delete(query);
      this.entries.set(query, known);
      return known;
    }
    const prepared = this.prepare(query);
    if (query.length <= this.limits.characters) {
      this.entries.set(query, prepared);
      this.characters += query.length;
      for (const [oldest] of this.entries) {
        if (this.entries.size <= this.limits.entries && this.characters <= this.limits.characters) break;
        this.entries.delete(oldest);
        this.characters -= oldest.length;
      }
    }
    return prepared;
  }

  get size(): number {
    return this.entries.size;
  }

  private prepare(query: string): PreparedDocument {
    let document: DocumentNode;
    try {
      document = parse(query, this.parseOptions);
    } catch {
      return REFUSED;
    }
    return validate(this.schema, document, this.rules).length === 0 ? { valid: true, document } : REFUSED;
  }
}
