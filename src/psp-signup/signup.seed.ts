import type { Em } from '../platform/db/orm.js';
import { SignupMerchant } from './signup-merchant.entity.js';

/** A 100 x 100 PNG in the merchant's colour: the smallest logo the signup rules take. */
const SEED_LOGO =
  'iVBORw0KGgoAAAANSUhEUgAAAGQAAABkCAIAAAD/gAIDAAAAoklEQVR42u3QMQ0AAAgDsDlBIuYQiAU+niZV0FQPR1EgS5YsWbJkKZAlS5YsWbIUyJIlS5YsWQpkyZIlS5YsBbJkyZIlS5YCWbJkyZIlS4EsWbJkyZKlQJYsWbJkyVIgS5YsWbJkKZAlS5YsWbIUyJIlS5YsWQpkyZIlS5YsBbJkyZIlS5YCWbJkyZIlS4EsWbJkyZKlQJYsWbJkyVIgS9a3BS6hJQB3bqZHAAAAAElFTkSuQmCC';

/**
 * TEST-ENVIRONMENT.md: PSP-kunde AS (920000088, sales unit 112233) is a merchant the test PSP signed up, so the
 * PSP's signup list (all its merchants) and `GET …/merchants/112233` show it, as they show the ones it signs up.
 */
export async function seedPspSignupMerchants(em: Em, now: Date): Promise<void> {
  await em.upsert(
    SignupMerchant,
    {
      msn: '112233',
      pspId: '6c3f0a2e-5b7d-4e8a-9c1f-2d4b6a8e0c13',
      merchantId: '0b0e8a5c-1f4e-4c57-9d1a-000000112233',
      organizationNumber: '920000088',
      companyName: 'PSP-kunde AS',
      companyEmail: 'post@psp-kunde.example',
      name: 'PSP-kunde Online',
      mccCode: null,
      logo: SEED_LOGO,
      email: null,
      website: null,
      address: { addressLine1: 'Storgata 1', city: 'Oslo', postCode: '0155', country: 'NO' },
      status: 'ACTIVE',
      createdAt: now,
      updatedAt: now,
    },
    { onConflictAction: 'ignore' },
  );
}
