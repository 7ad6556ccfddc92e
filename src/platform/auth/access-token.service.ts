import { randomUUID } from 'node:crypto';
import type { Services } from '../context.js';
import type { Em } from '../db/orm.js';
import { AppError } from '../errors/app-error.js';
import type { ApiClient } from './api-client.entity.js';
import { findApiClient, type TokenPrincipal } from './authenticate.js';
import { signJwt } from './jwt.js';
import { scopeFor } from './tenancy.js';

export interface AccessTokenRequest {
  clientId: string | undefined;
  clientSecret: string | undefined;
  subscriptionKey: string | undefined;
  msn: string | undefined;
  /** Where the request came from: the lockout of a client's secret counts per client id and address. */
  callerAddress: string;
}

/** The documented response: every field a string (FACTS §3). */
export interface AccessTokenResponse {
  token_type: 'Bearer';
  expires_in: string;
  ext_expires_in: string;
  expires_on: string;
  not_before: string;
  resource: string;
  access_token: string;
}

export async function issueAccessToken(services: Services, em: Em, request: AccessTokenRequest): Promise<AccessTokenResponse> {
  const client = await findApiClient(services, em, request, request.callerAddress, new Date());
  if (!client) {
    throw new AppError('INVALID_CLIENT_CREDENTIALS', 'The client_id, client_secret or Ocp-Apim-Subscription-Key is missing or wrong');
  }
  const principal = principalOfClient(client);
  if (request.msn) await scopeFor(services, em, principal, request.msn);

  const now = Math.floor(services.clock.now().getTime() / 1000);
  const lifetime = services.config.tokenLifetimeSeconds;
  const accessToken = signJwt(
    {
      iss: services.config.publicUrl,
      sub: client.clientId,
      knd: principal.kind,
      pid: principalId(principal),
      skd: client.subscriptionKeyDigest,
      iat: now,
      nbf: now,
      exp: now + lifetime,
      jti: randomUUID(),
    },
    services.config.tokenSecret,
  );
  return {
    token_type: 'Bearer',
    expires_in: String(lifetime),
    ext_expires_in: String(lifetime),
    expires_on: String(now + lifetime),
    not_before: String(now),
    resource: services.config.publicUrl,
    access_token: accessToken,
  };
}

/** The principal a client's tokens act as; the database guarantees the owner its kind names is set. */
export function principalOfClient(client: ApiClient): TokenPrincipal {
  if (client.kind === 'operator') return { kind: 'operator', clientId: client.clientId };
  if (client.kind === 'wallet') return { kind: 'wallet', clientId: client.clientId };
  const owner = client.kind === 'merchant' ? client.merchantId : client.kind === 'partner' ? client.partnerId : client.pspId;
  if (!owner) throw new Error(`api_client ${client.clientId} of kind ${client.kind} has no owner`);
  if (client.kind === 'merchant') return { kind: 'merchant', clientId: client.clientId, merchantId: owner };
  if (client.kind === 'partner') return { kind: 'partner', clientId: client.clientId, partnerId: owner };
  return { kind: 'psp', clientId: client.clientId, pspId: owner };
}

function principalId(principal: TokenPrincipal): string {
  switch (principal.kind) {
    case 'merchant':
      return principal.merchantId;
    case 'partner':
      return principal.partnerId;
    case 'psp':
      return principal.pspId;
    case 'operator':
    case 'wallet':
      return principal.clientId;
  }
}
