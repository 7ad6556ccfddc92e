import { pspEventResolvers } from '../../resolvers/psp-events.js';
import { pspResolvers } from '../../resolvers/psp.js';
import { salesUnitNode } from '../platform/auth/tenancy.js';
import type { DomainModule } from '../platform/module.js';
import { Migration20261123161000PspPayments } from '../psp/migrations/Migration20261123161000PspPayments.js';
import { Migration20261126140000PspBatchRunPerUnit } from '../psp/migrations/Migration20261126140000PspBatchRunPerUnit.js';
import { makePaymentCallback } from '../psp/psp-make-payment.callback.js';
import { nextPspPaymentTimeout, timeOutPspPayments } from '../psp/psp-approval.service.js';
import { pspLandingPages } from '../psp/psp-landing.page.js';
import { PspAgreement, PspBatchRun, PspPayment, PspPaymentLog, PspSalesUnit, PspStatusUpdate } from '../psp/psp-payment.entity.js';
import { pspPaymentEventTypes } from '../psp/psp-payment.events.js';
import { pspPaymentRoutes } from '../psp/psp-payment.routes.js';
import { findPspPaymentNode } from '../psp/psp-payment.queries.js';
import { pspPaymentStateMachine } from '../psp/psp-payment.transitions.js';
import { nextNightlyBatch, runNightlyBatch } from '../psp/psp-status-update.service.js';
import { seedPspSalesUnits } from '../psp/psp.seed.js';
import '../psp/psp.errors.js';

/** PSP payments (FACTS §6): the card-network-token flow, its landing page, callbacks, nightly batch and timeout. */
export const pspModule: DomainModule = {
  name: 'psp',
  entities: [PspSalesUnit, PspPayment, PspPaymentLog, PspStatusUpdate, PspAgreement, PspBatchRun],
  migrations: [
    { name: 'Migration20261123161000PspPayments', class: Migration20261123161000PspPayments },
    { name: 'Migration20261126140000PspBatchRunPerUnit', class: Migration20261126140000PspBatchRunPerUnit },
  ],
  routes: pspPaymentRoutes,
  pages: pspLandingPages,
  resolvers: [pspResolvers, pspEventResolvers],
  nodes: { PspPayment: salesUnitNode(findPspPaymentNode) },
  jobs: (services) => [
    { name: 'psp-payment-timeout', run: () => timeOutPspPayments(services), nextDueFor: (msn) => nextPspPaymentTimeout(services, msn) },
    { name: 'psp-nightly-batch', run: () => runNightlyBatch(services), nextDueFor: (msn) => nextNightlyBatch(services, msn) },
  ],
  stateMachines: [pspPaymentStateMachine],
  eventTypes: [pspPaymentEventTypes],
  callbackKinds: [makePaymentCallback],
  seedTestEnvironment: (em, now) => seedPspSalesUnits(em, now),
};
