import type { Resolvers } from '../src/generated/graphql.js';
import { listCallerSalesUnits } from '../src/merchants/sales-unit.queries.js';

export const merchantResolvers: Resolvers = {
  Query: {
    salesUnits: (_, __, { request }) => listCallerSalesUnits(request),
  },
};
