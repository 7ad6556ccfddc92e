import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * A registered GraphQL document (a trusted, or persisted, document): the id a client names it by and its text. With
 * `PAYGRAPH_TRUSTED_DOCUMENTS=required` the graph runs only these. An id never changes its text (ids are hashes of
 * it), so a row is written once and never updated.
 */
export const TrustedDocument = defineEntity({
  name: 'TrustedDocument',
  tableName: 'trusted_document',
  properties: {
    id: p.string().primary(),
    body: p.text(),
    /** The operation's name in the document, for the IDE's list and the operator's reading. */
    operationName: p.string().nullable(),
    /** Where it came from: `dashboard` (the service's own pages, at start) or `manifest` (an operator's registration). */
    origin: p.string(),
    registeredAt: p.datetime(),
  },
});
export type TrustedDocument = InferEntity<typeof TrustedDocument>;
