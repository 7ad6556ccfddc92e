import DataLoader from 'dataloader';
import { SalesUnit } from '../merchants/sales-unit.entity.js';
import { defineLoader } from '../platform/graph/loader-registry.js';
import { PspSalesUnit } from '../psp/psp-payment.entity.js';

export interface PspSalesUnitView {
  merchantSerialNumber: string;
  name: string;
  takesPspPayments: boolean;
  skipLandingPageAllowed: boolean;
}

/** A signed-up merchant's sales units (its one MSN), for many merchants in two statements. */
export const pspSalesUnitsByMsnLoader = defineLoader(
  'PspSalesUnitsByMsnLoader',
  (em) =>
    new DataLoader<string, PspSalesUnitView[]>(async (msns) => {
      const [units, settings] = await Promise.all([
        em.find(SalesUnit, { msn: { $in: [...msns] } }),
        em.find(PspSalesUnit, { msn: { $in: [...msns] } }),
      ]);
      return msns.map((msn) =>
        units
          .filter((u) => u.msn === msn)
          .map((u) => {
            const setting = settings.find((s) => s.msn === msn);
            return {
              merchantSerialNumber: u.msn,
              name: u.name,
              takesPspPayments: setting?.active ?? false,
              skipLandingPageAllowed: setting?.skipLandingPageAllowed ?? false,
            };
          }),
      );
    }),
);
