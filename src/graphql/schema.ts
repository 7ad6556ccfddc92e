import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeExecutableSchema } from '@graphql-tools/schema';
import type { GraphQLSchema } from 'graphql';
import { resolvers } from '../../resolvers/index.js';

/** `schema/` at the repository root, whether running from source or from `dist/`. */
function schemaDirectory(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  for (const candidate of [join(here, '../../schema'), join(here, '../../../schema')]) {
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

export function buildSchema(): GraphQLSchema {
  return makeExecutableSchema({ typeDefs: loadTypeDefs(), resolvers });
}
