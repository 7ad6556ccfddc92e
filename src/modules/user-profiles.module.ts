import { userProfileResolvers } from '../../resolvers/user-profiles.js';
import type { DomainModule } from '../platform/module.js';
import { Migration20261123120000UserProfiles } from '../user-profiles/migrations/Migration20261123120000UserProfiles.js';
import { Migration20261126140000ConsentGivenThrough } from '../user-profiles/migrations/Migration20261126140000ConsentGivenThrough.js';
import { consentRetention } from '../user-profiles/user-consent.retention.js';
import { Migration20261205020002OtherAddresses } from '../user-profiles/migrations/Migration20261205020002OtherAddresses.js';
import { UserConsent } from '../user-profiles/user-consent.entity.js';
import { UserBankAccount, UserProfile } from '../user-profiles/user-profile.entity.js';
import { userProfileRoutes } from '../user-profiles/user-profile.routes.js';
import { seedUserProfiles } from '../user-profiles/user-profile.seed.js';
import '../user-profiles/user-profile.errors.js';

/** User profiles: the wallet users' profiles, the consents that share them, and the userinfo API that reads them. */
export const userProfilesModule: DomainModule = {
  name: 'user-profiles',
  entities: [UserProfile, UserBankAccount, UserConsent],
  migrations: [
    { name: 'Migration20261123120000UserProfiles', class: Migration20261123120000UserProfiles },
    { name: 'Migration20261126140000ConsentGivenThrough', class: Migration20261126140000ConsentGivenThrough },
    { name: 'Migration20261205020002OtherAddresses', class: Migration20261205020002OtherAddresses },
  ],
  routes: userProfileRoutes,
  resolvers: [userProfileResolvers],
  seedTestEnvironment: (em) => seedUserProfiles(em),
  retention: [consentRetention],
};
