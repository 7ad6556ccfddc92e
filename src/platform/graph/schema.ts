import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeExecutableSchema } from '@graphql-tools/schema';
import {
  NoSchemaIntrospectionCustomRule,
  buildASTSchema,
  concatAST,
  parse,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type ValidationRule,
} from 'graphql';
import type { ResolverMap } from '../module.js';

/** `schema/` at the repository root, whether running from source or from `dist/`. */
function schemaDirectory(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  for (const candidate of [join(here, '../../../schema'), join(here, '../../../../schema')]) {
    try {
      readdirSync(candidate);
      return candidate;
    } catch {
      // try the next candidate
    }
  }
  throw new Error('schema/ directory not found');
}

export function loadTypeDefs(): string[] {
  const dir = schemaDirectory();
  return readdirSync(dir)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
    .map((f) => readFileSync(join(dir, f), 'utf8'));
}

let lastBuilt: { resolvers: readonly ResolverMap[]; schema: GraphQLSchema } | undefined;

/**
 * The one executable schema: every SDL file of `schema/` with every module's resolvers. Built once per process for
 * the same resolver maps: a schema is immutable, and a process that starts several apps (the tests start one per
 * file, some several) otherwise parses and builds it again each time, about 0.3 s of CPU.
 */
export function buildSchema(resolvers: readonly ResolverMap[]): GraphQLSchema {
  const same = lastBuilt && lastBuilt.resolvers.length === resolvers.length && lastBuilt.resolvers.every((map, i) => map === resolvers[i]);
  if (same) return lastBuilt!.schema;
  // The SDL files are one document to graphql-js (each type defined once, `extend`ed elsewhere), which builds it in
  // half the time of graphql-tools' merge of the same files; and the resolvers go onto that new schema's fields in
  // place, not onto a copy of it. Without source locations: `npm run check` validates the SDL files with them.
  const sdl = buildASTSchema(concatAST(loadTypeDefs().map((file) => parse(file, { noLocation: true }))));
  const schema = makeExecutableSchema({ typeDefs: sdl, resolvers: [...resolvers], updateResolversInPlace: true });
  lastBuilt = { resolvers: [...resolvers], schema };
  return schema;
}

/**
 * What a client may learn about the schema, one rule for both faces (POST /graphql and graphql-ws): in production
 * no introspection and no "Did you mean …" hints, so the schema cannot be mapped by probing it with typos.
 */
export interface SchemaDisclosure {
  /** Validation rules that refuse introspection where it is off. */
  rules: ValidationRule[];
  /** Introspection is off: the query limits then measure its fields like any other. */
  refusesIntrospection: boolean;
  /** Applied to every error a client receives: validation and variable coercion both suggest names. */
  formatError(error: GraphQLFormattedError): GraphQLFormattedError;
}

export function schemaDisclosure(production: boolean): SchemaDisclosure {
  if (!production) return { rules: [], refusesIntrospection: false, formatError: (error) => error };
  return {
    rules: [NoSchemaIntrospectionCustomRule],
    refusesIntrospection: true,
    formatError: (error) => ({ ...error, message: withoutSuggestions(error.message) }),
  };
}

/** graphql-js appends its hints as a last sentence (`Did you mean "payment"?`, `Did you mean the enum value "NOK"?`). */
function withoutSuggestions(message: string): string {
  return message.replace(/ ?Did you mean .+?\?$/s, '');
}
