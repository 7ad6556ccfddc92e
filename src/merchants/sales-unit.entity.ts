import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export type SalesUnitStatus = 'ACTIVE' | 'DEACTIVATED';
export type CaptureType = 'ReserveCapture' | 'DirectCapture' | 'NotApplicable';

/** A sales unit of a merchant, identified by its merchant serial number (MSN). */
export const SalesUnit = defineEntity({
  name: 'SalesUnit',
  tableName: 'sales_unit',
  properties: {
    msn: p.string().primary(),
    merchantId: p.uuid(),
    name: p.string(),
    /** Long-living payments (`expiresAt`) need the sales unit to be approved for them (FACTS §1.2). */
    longLivingPaymentsAllowed: p.boolean(),
    /** A DEACTIVATED unit refuses new payments until it is ACTIVE again (sales-unit-status.ts). */
    status: p.string().$type<SalesUnitStatus>().default('ACTIVE'),
    captureType: p.string().$type<CaptureType>().default('ReserveCapture'),
    skipLandingPageAllowed: p.boolean().default(false),
    /** Express in ePayment (`shipping` on a create) is allowed; the operator turns it off per unit (else 5020). */
    expressEnabled: p.boolean().default(true),
    recurringAllowed: p.boolean().default(false),
    /** The PNG shown in the app and on the landing page, base64; lazy, so lists never read it. */
    logo: p.text().nullable().lazy(),
    version: p.integer().default(1),
    createdAt: p.datetime(),
  },
});
export type SalesUnit = InferEntity<typeof SalesUnit>;
