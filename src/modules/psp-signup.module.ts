import { pspSignupResolvers } from '../../resolvers/psp-signup.js';
import type { DomainModule } from '../platform/module.js';
import type { EventTypeDefinition } from '../platform/events/event-types.js';
import { Migration20261123161001PspSignup } from '../psp-signup/migrations/Migration20261123161001PspSignup.js';
import { SignupMerchant } from '../psp-signup/signup-merchant.entity.js';
import { signupRoutes } from '../psp-signup/signup.routes.js';
import { seedPspSignupMerchants } from '../psp-signup/signup.seed.js';
import '../psp-signup/signup.errors.js';

/** Signup merchants' changes go to the outbox (graph subscribers); no webhook event is defined for them. */
const signupEventTypes: EventTypeDefinition = {
  streamType: 'psp-signup-merchant',
  webhookEventNames: [],
  webhookBody: () => {
    throw new Error('PSP signup events are not sent to webhooks');
  },
};

/** PSP merchant signup (FACTS §7): a PSP onboards merchants, each getting a sales unit that takes PSP payments. */
export const pspSignupModule: DomainModule = {
  name: 'psp-signup',
  entities: [SignupMerchant],
  migrations: [{ name: 'Migration20261123161001PspSignup', class: Migration20261123161001PspSignup }],
  routes: signupRoutes,
  resolvers: [pspSignupResolvers],
  eventTypes: [signupEventTypes],
  seedTestEnvironment: (em, now) => seedPspSignupMerchants(em, now),
};
