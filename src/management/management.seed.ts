import type { Em } from '../platform/db/orm.js';
import { PricePackage } from './price-package.entity.js';

/** The test environment's price packages (TEST-ENVIRONMENT.md), with fixed ids the README lists. */
export const testPricePackages = [
  {
    id: '8a11afb7-c223-48ed-8ca6-4722b97261aa',
    name: 'ePayment standard',
    description: '2.99%',
    visibleInSignupForm: true,
    productType: 'ePayment' as const,
  },
  {
    id: '5c2e7a90-3d41-4b8e-9f6a-1b0c2d3e4f50',
    name: 'POS standard',
    description: '1.99%',
    visibleInSignupForm: true,
    productType: 'ePaymentCustomerPresent' as const,
  },
];

/**
 * Price packages, and what the management interface shows of the test sales units (TEST-ENVIRONMENT.md):
 * 123456 ReserveCapture with recurring, 654321 DirectCapture, 112233 may skip the landing page. The settings are
 * set only on a unit nobody changed yet (version 1), so a restart never undoes what testers did.
 */
export async function seedManagement(em: Em): Promise<void> {
  for (const pkg of testPricePackages) await em.upsert(PricePackage, pkg, { onConflictAction: 'ignore' });
  await em.execute(`update sales_unit set recurring_allowed = true where msn = '123456' and version = 1`);
  await em.execute(`update sales_unit set capture_type = 'DirectCapture' where msn = '654321' and version = 1`);
  await em.execute(`update sales_unit set skip_landing_page_allowed = true where msn = '112233' and version = 1`);
  await em.execute(
    `update partner set level = 'Vipps Partner', contact_name = 'Test Partner', contact_email = 'partner@example.com'
     where id = '100200' and contact_name is null`,
  );
}
