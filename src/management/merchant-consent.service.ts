import type { RequestContext } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import { recordEvent } from '../platform/events/record-event.js';
import { Partner } from '../merchants/partner.entity.js';

export interface PartnerConsentView {
  partnerId: string;
  partnerName: string;
  merchantConsent: boolean;
}

/**
 * The merchant gives or withdraws its consent to share its own data with a partner its sales units are connected
 * to: every connection of its units to that partner changes at once, with one event per unit, in one transaction.
 * Tenancy reads the connection on every request, so the partner's next request already sees it.
 */
export async function setMerchantConsent(ctx: RequestContext, partnerId: string, consent: boolean): Promise<PartnerConsentView> {
  const principal = ctx.principal;
  if (principal.kind !== 'merchant') {
    throw new AppError('FORBIDDEN_PRINCIPAL', 'Only the merchant gives or withdraws its consent', [
      { name: 'Authorization', reason: `Not accepted here: credentials of a ${principal.kind}` },
    ]);
  }
  return ctx.em.transactional(async (em) => {
    const rows = await em.execute<{ msn: string }[]>(
      `update partner_sales_unit set merchant_consent = ?
       where partner_id = ? and msn in (select msn from sales_unit where merchant_id = ?) returning msn`,
      [consent, partnerId, principal.merchantId],
    );
    if (rows.length === 0) {
      throw new AppError('PARTNER_NOT_CONNECTED', `Partner ${partnerId} is not connected to the merchant's sales units`, [
        { name: 'partnerId', reason: 'No sales unit of the merchant is connected to this partner' },
      ]);
    }
    const now = ctx.clock.now();
    for (const { msn } of rows) {
      recordEvent(em, {
        streamType: 'merchant-consent',
        streamId: `${partnerId}:${msn}`,
        msn,
        name: consent ? 'management.merchant-consent.given.v1' : 'management.merchant-consent.withdrawn.v1',
        payload: { partnerId, msn, merchantConsent: consent },
        occurredAt: now,
      });
    }
    const partner = await em.findOneOrFail(Partner, { id: partnerId });
    await em.flush();
    return { partnerId, partnerName: partner.name, merchantConsent: consent };
  });
}

/**
 * The partners connected to the merchant's units, with the consent state (the merchant's own view): `limit` of
 * them after the partner id `after`, by partner id (code point order, the same on both databases).
 */
export async function partnerConsentsOf(
  ctx: RequestContext,
  merchantId: string,
  limit: number,
  after: string | undefined,
): Promise<PartnerConsentView[]> {
  if (ctx.principal.kind !== 'merchant' || ctx.principal.merchantId !== merchantId) return [];
  const rows = await ctx.em.execute<{ partner_id: string; name: string; consent: boolean }[]>(
    `select p.id as partner_id, p.name, bool_and(psu.merchant_consent) as consent
     from partner_sales_unit psu join sales_unit su on su.msn = psu.msn join partner p on p.id = psu.partner_id
     where su.merchant_id = ? ${after !== undefined ? 'and p.id collate "C" > ?' : ''}
     group by p.id, p.name order by p.id collate "C" limit ?`,
    [merchantId, ...(after !== undefined ? [after] : []), limit],
  );
  return rows.map((r) => ({ partnerId: r.partner_id, partnerName: r.name, merchantConsent: Boolean(r.consent) }));
}
