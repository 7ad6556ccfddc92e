import { authenticateBearer } from '../platform/auth/authenticate.js';
import type { RequestHeaders } from '../platform/auth/header-rules.js';
import { contextFor } from '../platform/auth/request-context.js';
import { scopeFor } from '../platform/auth/tenancy.js';
import type { RequestContext, Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import { AppError } from '../platform/errors/app-error.js';
import type { PublicContext } from '../platform/rest/rest-interface.js';

/**
 * The request context of the management and partner interfaces. Unlike ePayment, most of their operations name no
 * sales unit (a partner's merchants, its price packages), so the context is built here: headers were checked by the
 * interface's front (400), then the access token and key (401), the kind of principal (403: merchants and
 * partners), and the `Merchant-Serial-Number` when sent (403 when the caller may not act for it). A partner acting
 * for a merchant must send it (spec 3). Without one, the scope names no sales unit (`msn` empty) and each service
 * checks what the caller may see (management-access.ts).
 */
export async function managementContext(
  services: Services,
  front: PublicContext,
  headers: RequestHeaders,
  options: { partnerActsForMerchant?: boolean } = {},
): Promise<RequestContext> {
  const principal = authenticateBearer(services, front.lookupHeader);
  if (principal.kind !== 'merchant' && principal.kind !== 'partner') {
    throw new AppError('FORBIDDEN_PRINCIPAL', 'These credentials may not use this interface', [
      { name: 'Authorization', reason: `Not accepted here: credentials of a ${principal.kind}` },
    ]);
  }
  const em = forkEm(services.orm);
  if (headers.msn === undefined && principal.kind === 'partner' && options.partnerActsForMerchant) {
    throw AppError.validation([
      { name: 'Merchant-Serial-Number', reason: 'Required when a partner acts for a merchant (the merchant’s MSN)' },
    ]);
  }
  const scope = headers.msn === undefined ? { msn: '', readsMerchantData: false } : await scopeFor(services, em, principal, headers.msn);
  return contextFor(services, em, principal, scope, front.traceId);
}

/** Spec 3: `Idempotency-Key` 1 to 50 letters, digits or `-`. */
export function checkIdempotencyKeyFormat(key: string): string {
  if (!/^[A-Za-z0-9-]{1,50}$/.test(key)) {
    throw AppError.validation([{ name: 'Idempotency-Key', reason: 'Must be 1 to 50 letters, digits or "-"' }]);
  }
  return key;
}
