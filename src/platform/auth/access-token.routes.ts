import type { Services } from '../context.js';
import { forkEm } from '../db/orm.js';
import { epaymentProblem } from '../rest/error-formats/epayment-problem.js';
import { defineRestInterface, type RestInterface } from '../rest/rest-interface.js';
import { issueAccessToken } from './access-token.service.js';

/**
 * `POST /accesstoken/get` (FACTS §3): credentials in headers, empty body. Public in the sense that it is where
 * credentials are exchanged for a token; merchants, partners and PSPs alike.
 */
export function accessTokenRoutes(services: Services): RestInterface {
  return defineRestInterface(
    services,
    {
      name: 'Access token API',
      prefix: '/accesstoken',
      errorFormat: epaymentProblem,
      auth: 'public',
      headers: { msn: 'optional', systemHeaders: { presence: 'optional', maxLength: 30 }, clientCredentials: 'required' },
    },
    (route) => [
      route({
        method: 'POST',
        path: '/get',
        summary: 'Get an access token',
        idempotent: false,
        success: { status: 200, description: 'The token; every field a string' },
        handler: async (ctx, { headers }) => {
          const body = await issueAccessToken(services, forkEm(services.orm), {
            clientId: ctx.lookupHeader('client_id'),
            clientSecret: ctx.lookupHeader('client_secret'),
            subscriptionKey: ctx.lookupHeader('Ocp-Apim-Subscription-Key'),
            msn: headers.msn,
            callerAddress: ctx.callerAddress,
          });
          return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body };
        },
      }),
    ],
  );
}
