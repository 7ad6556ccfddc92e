import type { HeaderRules } from '../platform/auth/header-rules.js';
import type { AuthRule } from '../platform/auth/request-context.js';
import type { Services } from '../platform/context.js';
import { userinfoProblem } from './userinfo-problem.js';
import { defineRestInterface, type RestInterface } from '../platform/rest/rest-interface.js';
import { readUserInfo, SUB_PATTERN } from './user-info.service.js';
import { readUserInfoWithUserToken } from './user-token.service.js';

/** FACTS §10: the MSN names the sales unit the user consented to; system headers up to 30 characters. */
const USERINFO_HEADERS: HeaderRules = { msn: 'optional', systemHeaders: { presence: 'optional', maxLength: 30 } };

/**
 * A merchant's (or partner's) access token for its sales unit. The token already names the client, so the
 * subscription key is optional (the userinfo Postman collection sends none); one sent must still match.
 */
const USERINFO_AUTH = { method: 'bearer', accepts: ['merchant', 'partner'], subscriptionKey: 'optional' } satisfies AuthRule;

/**
 * The userinfo API 2.0.3 (FACTS §10). Its two operations take different tokens: `userinfo/{sub}` a merchant's (or
 * partner's) access token, checked by the request front like every merchant interface; `userinfo/` the wallet
 * user's own token, which its service checks (the front knows no wallet user).
 */
export function userProfileRoutes(services: Services): RestInterface {
  return defineRestInterface(
    services,
    { name: 'Userinfo API', prefix: '/vipps-userinfo-api', errorFormat: userinfoProblem, auth: USERINFO_AUTH, headers: USERINFO_HEADERS },
    (route) => [
      route({
        method: 'GET',
        path: '/userinfo/{sub}',
        summary: 'The profile the user consented to share with the sales unit (merchant access token)',
        idempotent: false,
        params: { sub: { accepts: (v) => SUB_PATTERN.test(v), reason: 'Must be a UUID', jsonSchema: { type: 'string', format: 'uuid' } } },
        success: { status: 200, description: 'The consented claims (OpenID Connect UserInfo)' },
        handler: async (ctx, { params }) => userInfoResponse(await readUserInfo(ctx, params.sub)),
      }),
      route({
        method: 'GET',
        path: '/userinfo/',
        summary: "The profile the user consented to share (the user's access token, login browser flow)",
        idempotent: false,
        auth: 'public',
        documentedAuth: 'bearer',
        success: { status: 200, description: 'The consented claims (OpenID Connect UserInfo)' },
        handler: async (publicCtx) => userInfoResponse(await readUserInfoWithUserToken(services, publicCtx.lookupHeader)),
      }),
    ],
  );
}

function userInfoResponse(body: object) {
  // The definition's media type; the claims are personal data, so no cache keeps them.
  return { status: 200, headers: { 'content-type': 'application/json;charset=UTF-8', 'cache-control': 'no-store' }, body };
}
