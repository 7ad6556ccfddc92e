import type { Services } from '../context.js';
import { forkEm } from '../db/orm.js';
import { header, readHeaders } from '../rest/headers.js';
import type { Route } from '../rest/http-types.js';
import { renderEpaymentProblem } from '../rest/problem.js';
import { issueAccessToken } from './access-token.service.js';

/** `POST /accesstoken/get` (FACTS §3): credentials in headers, empty body. */
export function accessTokenRoutes(services: Services): Route[] {
  return [
    {
      method: 'POST',
      pattern: '/accesstoken/get',
      renderError: renderEpaymentProblem,
      handler: async (request) => {
        const { msn } = readHeaders(request, { msn: 'optional', idempotencyKey: 'absent', systemHeaderMaxLength: 30 });
        const body = await issueAccessToken(services, forkEm(services.orm), {
          clientId: header(request, 'client_id'),
          clientSecret: header(request, 'client_secret'),
          subscriptionKey: header(request, 'Ocp-Apim-Subscription-Key'),
          msn,
        });
        return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body };
      },
    },
  ];
}
