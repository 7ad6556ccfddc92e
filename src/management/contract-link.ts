import { randomUUID } from 'node:crypto';
import { signJwt, verifyJwt, type SignedClaims } from '../platform/auth/jwt.js';
import type { MerchantPrincipal, PartnerPrincipal } from '../platform/auth/principal.js';
import { contextFor } from '../platform/auth/request-context.js';
import { scopeFor } from '../platform/auth/tenancy.js';
import { principalScope } from '../platform/auth/tenancy-scope.js';
import type { RequestContext, Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import { requireMerchant } from './management-access.js';
import { actingFor } from '../platform/auth/tenancy-scope.js';

/** Where a contract link opens: a browser page, outside the management interface (no headers to send). */
export const CONTRACT_LINK_PATH = '/merchant-portal/contracts/agreement.pdf';

/** A link is for opening now, not for keeping: it expires after five minutes. */
export const CONTRACT_LINK_LIFETIME_S = 300;

/** What a contract link carries, signed: who asked (the caller) and for which merchant, acting for which unit. */
interface ContractLinkClaims extends SignedClaims {
  typ: 'contract-link';
  /** The merchant's organisation number. */
  org: string;
  knd: 'merchant' | 'partner';
  /** The merchant's id or the partner id, as `knd` says. */
  pid: string;
  cid: string;
  /** The `Merchant-Serial-Number` the caller named (a partner acting for the merchant), or ''. */
  msn: string;
  jti: string;
}

/**
 * The link `GET …/contracts` answers: a short-lived signed URL a browser opens without headers, bound to the caller
 * and the merchant. The caller's access to the merchant's data was checked to make it and is checked again when it
 * is opened (a partner whose consent was withdrawn meanwhile gets 403).
 */
export function contractLink(ctx: RequestContext, orgno: string): string {
  const principal = ctx.principal;
  if (principal.kind !== 'merchant' && principal.kind !== 'partner') throw new Error(`No contract link for a ${principal.kind}`);
  const now = Math.floor(ctx.clock.now().getTime() / 1000);
  const claims: ContractLinkClaims = {
    typ: 'contract-link',
    org: orgno,
    knd: principal.kind,
    pid: principal.kind === 'merchant' ? principal.merchantId : principal.partnerId,
    cid: principal.clientId,
    msn: actingFor(ctx.scope) ?? '',
    jti: randomUUID(),
    nbf: now,
    exp: now + CONTRACT_LINK_LIFETIME_S,
  };
  return `${ctx.config.publicUrl}${CONTRACT_LINK_PATH}?token=${encodeURIComponent(signJwt(claims, ctx.config.tokenSecret))}`;
}

export type OpenedContract = { ok: true; merchant: { orgno: string; name: string } } | { ok: false; status: 403 | 404; message: string };

/** Opens a contract link: its signature and time, then the caller's access to the merchant's data as it is now. */
export async function openContractLink(services: Services, token: string, traceId: string): Promise<OpenedContract> {
  const now = Math.floor(services.clock.now().getTime() / 1000);
  const verdict = verifyJwt<ContractLinkClaims>(token, services.config.tokenSecret, now);
  if (!verdict.ok || verdict.claims.typ !== 'contract-link') {
    return { ok: false, status: 404, message: 'This contract link is not valid or has expired. Ask for the contracts again.' };
  }
  const { claims } = verdict;
  const principal: MerchantPrincipal | PartnerPrincipal =
    claims.knd === 'merchant'
      ? { kind: 'merchant', merchantId: claims.pid, clientId: claims.cid }
      : { kind: 'partner', partnerId: claims.pid, clientId: claims.cid };
  const em = forkEm(services.orm);
  try {
    const scope = claims.msn ? await scopeFor(services, em, principal, claims.msn) : principalScope();
    const { merchant } = await requireMerchant(contextFor(services, em, principal, scope, traceId), claims.org, 'merchantData');
    return { ok: true, merchant: { orgno: merchant.orgNumber, name: merchant.name } };
  } catch {
    // The unit, the merchant or the consent is gone since the link was made: the caller may no longer read it.
    return { ok: false, status: 403, message: 'You may no longer read this merchant’s contracts.' };
  }
}
