import { createHash } from 'node:crypto';
import { GraphQLError, getOperationAST, parse } from 'graphql';
import type { Em, Orm } from '../db/orm.js';
import { forkEm } from '../db/orm.js';
import { AppError } from '../errors/app-error.js';

/** One document a manifest lists: the id clients send, its text, and its operation's name where it has one. */
export interface ManifestDocument {
  id: string;
  body: string;
  name: string | null;
}

const MAX_ID_LENGTH = 200;

/**
 * Both manifest formats, read from their JSON text:
 * - graphql-codegen's client preset with `persistedDocuments` (`persisted-documents.json`): `{ "<hash>": "<document>" }`,
 *   the hash being whatever the preset was told (sha1 by default in older versions, sha256, or a function of the text);
 * - Apollo's persisted query manifest (`@apollo/generate-persisted-query-manifest`): `{ "format":
 *   "apollo-persisted-query-manifest", "version": 1, "operations": [{ "id", "name", "type", "body" }] }`, whose ids are
 *   the sha256 of the body (checked: a manifest whose ids are not is a different or damaged file).
 * Every body must parse as one or more operations; nothing is half-read: a bad entry refuses the whole manifest.
 */
export function parseManifest(text: string): ManifestDocument[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalid('The manifest is not JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw invalid('The manifest is a JSON object');
  const record = json as Record<string, unknown>;
  const entries: [string, unknown][] = record.format === 'apollo-persisted-query-manifest' ? apolloEntries(record) : Object.entries(record);
  if (entries.length === 0) throw invalid('The manifest lists no documents');
  return entries.map(([id, body]) => {
    if (id.length === 0 || id.length > MAX_ID_LENGTH)
      throw invalid(`A document id is 1 to ${MAX_ID_LENGTH} characters, got "${id.slice(0, 40)}"`);
    if (typeof body !== 'string' || body.trim() === '') throw invalid(`Document ${id} has no text`);
    return { id, body, name: operationNameOf(id, body) };
  });
}

function apolloEntries(manifest: Record<string, unknown>): [string, unknown][] {
  if (manifest.version !== 1) throw invalid(`Apollo's persisted query manifest version 1 is read, got ${JSON.stringify(manifest.version)}`);
  if (!Array.isArray(manifest.operations)) throw invalid('An Apollo persisted query manifest lists its operations');
  return manifest.operations.map((operation: unknown) => {
    const { id, body } = (operation ?? {}) as Record<string, unknown>;
    if (typeof id !== 'string' || typeof body !== 'string') throw invalid('Each operation of the manifest has an id and a body');
    if (id !== sha256(body)) throw invalid(`Operation ${id}: its id is not the sha256 of its body`);
    return [id, body];
  });
}

function operationNameOf(id: string, body: string): string | null {
  try {
    return getOperationAST(parse(body))?.name?.value ?? null;
  } catch (error) {
    if (error instanceof GraphQLError) throw invalid(`Document ${id} does not parse: ${error.message}`);
    throw error;
  }
}

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

const invalid = (message: string) => new AppError('OPERATOR_INVALID', message, [{ name: 'manifest', reason: message }]);

/**
 * The registered document a GraphQL request names instead of (or beside) its text, in either convention: `documentId`
 * (GraphQL over HTTP's persisted documents, as graphql-codegen's client preset sends it) or
 * `extensions.persistedQuery.sha256Hash` (Apollo's persisted queries). The same field names on every transport: the
 * HTTP body or query string, the graphql-ws `subscribe` payload, an SSE or multipart request.
 */
export function documentIdOf(params: { documentId?: unknown; extensions?: unknown }): string | undefined {
  if (typeof params.documentId === 'string') return params.documentId;
  const persisted = (params.extensions as { persistedQuery?: { sha256Hash?: unknown } } | null | undefined)?.persistedQuery;
  return typeof persisted?.sha256Hash === 'string' ? persisted.sha256Hash : undefined;
}

/**
 * The registered documents, as the admission reads them: by id, from PostgreSQL, each kept in memory once found (an
 * id never changes its text; an id not found is asked again, as another instance or the operator may register it).
 */
export class TrustedDocumentStore {
  private readonly known = new Map<string, string>();

  constructor(private readonly orm: Orm) {}

  async bodyOf(id: string): Promise<string | undefined> {
    if (id.length === 0 || id.length > MAX_ID_LENGTH) return undefined;
    const cached = this.known.get(id);
    if (cached !== undefined) return cached;
    const [row] = await forkEm(this.orm).execute<{ body: string }[]>('select body from trusted_document where id = ?', [id]);
    if (row) this.known.set(id, row.body);
    return row?.body;
  }
}

/**
 * Writes documents once each: an id registered before with the same text is left as it is (registering a manifest
 * again is harmless); with another text it is refused, as a client naming that id would get a different operation.
 * Returns the ids newly registered.
 */
export async function insertTrustedDocuments(
  em: Em,
  documents: readonly ManifestDocument[],
  origin: 'dashboard' | 'manifest',
  now: Date,
): Promise<string[]> {
  const ids = documents.map((d) => d.id);
  const existing = await em.execute<{ id: string; body: string }[]>(
    `select id, body from trusted_document where id in (${ids.map(() => '?').join(', ')})`,
    ids,
  );
  const bodies = new Map(existing.map((row) => [row.id, row.body]));
  const fresh = new Map<string, ManifestDocument>();
  for (const document of documents) {
    const known = bodies.get(document.id) ?? fresh.get(document.id)?.body;
    if (known !== undefined && known !== document.body) {
      throw new AppError('OPERATOR_CONFLICT', `Document ${document.id} is registered with another text`, [
        { name: 'manifest', reason: `Document ${document.id} is registered with another text` },
      ]);
    }
    if (!bodies.has(document.id)) fresh.set(document.id, document);
  }
  if (fresh.size === 0) return [];
  const rows = [...fresh.values()];
  const inserted = await em.execute<{ id: string }[]>(
    `insert into trusted_document (id, body, operation_name, origin, registered_at) values ${rows.map(() => '(?, ?, ?, ?, ?)').join(', ')}
     on conflict (id) do nothing returning id`,
    rows.flatMap((d) => [d.id, d.body, d.name, origin, now]),
  );
  const insertedIds = new Set(inserted.map((row) => row.id));
  // Registered meanwhile by another registration: the same text, or a refusal as above.
  const raced = rows.filter((d) => !insertedIds.has(d.id));
  if (raced.length > 0) return [...insertedIds, ...(await insertTrustedDocuments(em, raced, origin, now))];
  return [...insertedIds];
}

/** The registered documents, by name, for the IDE's list (at most `limit`). */
export async function listTrustedDocuments(em: Em, limit: number): Promise<ManifestDocument[]> {
  const rows = await em.execute<{ id: string; body: string; operation_name: string | null }[]>(
    'select id, body, operation_name from trusted_document order by operation_name nulls last, id limit ?',
    [limit],
  );
  return rows.map((row) => ({ id: row.id, body: row.body, name: row.operation_name }));
}
