import { createHash } from 'node:crypto';
import * as queries from './client/dashboard/queries.js';

/**
 * The dashboard's own documents (every string queries.ts exports, and the strings of its exported records), by
 * their id: the sha256 of the text. One list for both ends: the page bundle names each document by this id
 * (scripts/build-pages.mjs bundles this module to read it, and writes the manifest dist/pages/dashboard-documents.json),
 * and the service registers them as trusted documents at every start (app.ts). It imports nothing else, so the build
 * can run it.
 */
export function dashboardDocuments(): Map<string, string> {
  const documents = new Map<string, string>();
  for (const value of Object.values(queries) as unknown[]) {
    const texts = typeof value === 'string' ? [value] : typeof value === 'object' && value !== null ? Object.values(value) : [];
    for (const text of texts) {
      if (typeof text === 'string') documents.set(createHash('sha256').update(text, 'utf8').digest('hex'), text);
    }
  }
  return documents;
}
