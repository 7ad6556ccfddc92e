import type { Resolvers } from '../src/generated/graphql.js';

/** Each domain registers the finders of its node types (`nodes` in its manifest, src/modules/); this only dispatches. */
export const nodeResolvers: Resolvers = {
  Query: {
    // The registry's nodes carry their `__typename`, which picks the type; the mappers cannot express that union.
    node: (_, { id }, { request, services }) => services.nodes.find(request, id) as never,
  },
};
