import { insertTrustedDocuments, parseManifest } from '../platform/graph/trusted-documents.js';
import type { OperatorCall } from './onboarding.service.js';
import { recordOperatorAction } from './operator-action.js';

export interface DocumentRegistration {
  /** Documents the manifest lists. */
  listed: number;
  /** Of those, the ones registered now (the others were registered before, with the same text). */
  registered: number;
  /** The manifest's ids, in its order. */
  ids: string[];
}

/**
 * Registers a manifest's documents (graphql-codegen's `persisted-documents.json` or Apollo's persisted query manifest:
 * trusted-documents.ts reads both) as trusted documents, in one transaction with the operator's event: all or none.
 * The command line and the operator graph both call this; the service loads nothing from outside on its own.
 */
export async function registerDocuments(call: OperatorCall, manifest: string): Promise<DocumentRegistration> {
  const documents = parseManifest(manifest);
  return call.em.transactional(async (em) => {
    const added = await insertTrustedDocuments(em, documents, 'manifest', call.now);
    if (added.length > 0) {
      recordOperatorAction(em, {
        actor: call.actor,
        name: 'documents.registered',
        subject: { documents: String(added.length), first: added[0] ?? null },
        at: call.now,
      });
    }
    return { listed: new Set(documents.map((d) => d.id)).size, registered: added.length, ids: documents.map((d) => d.id) };
  });
}
