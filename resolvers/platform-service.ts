import type { Resolvers } from '../src/generated/graphql.js';

export const serviceResolvers: Resolvers = {
  Query: {
    serviceEnvironment: (_, __, { services }) => (services.config.env === 'test' ? 'TEST' : 'PRODUCTION'),
  },
};
