import { testOperator } from '../../src/operator/operator.seed.js';
import { PrincipalClient, type ClientCredentials } from './principal-client.js';

/** The operator's API client of the test environment (README): acts for no sales unit, names none. */
export class OperatorClient extends PrincipalClient {
  constructor(baseUrl: string, credentials: ClientCredentials = testOperator) {
    super(baseUrl, credentials);
  }

  protected actingFor(): Record<string, string> {
    return {};
  }
}

/** Each operator mutation with a valid input, as any principal would send it (the refusal tests send all of them). */
export const operatorMutations: Record<string, { query: string; variables: Record<string, unknown> }> = {
  createPartner: {
    query: 'mutation($i: CreatePartnerInput!) { createPartner(input: $i) { partner { partnerId } userErrors { code } } }',
    variables: { i: { name: 'Intruder AS' } },
  },
  deactivatePartner: {
    query: 'mutation($i: DeactivatePartnerInput!) { deactivatePartner(input: $i) { partnerId userErrors { code } } }',
    variables: { i: { partnerId: '100200' } },
  },
  createMerchant: {
    query: 'mutation($i: CreateMerchantInput!) { createMerchant(input: $i) { merchant { merchantId } userErrors { code } } }',
    variables: { i: { orgNumber: '920000037' } },
  },
  deactivateMerchant: {
    query: 'mutation($i: DeactivateMerchantInput!) { deactivateMerchant(input: $i) { merchantId userErrors { code } } }',
    variables: { i: { merchantId: '0b0e8a5c-1f4e-4c57-9d1a-000000654321' } },
  },
  createSalesUnit: {
    query: 'mutation($i: CreateSalesUnitInput!) { createSalesUnit(input: $i) { salesUnit { msn } userErrors { code } } }',
    variables: { i: { merchantId: '0b0e8a5c-1f4e-4c57-9d1a-000000654321', name: 'Intruder unit' } },
  },
  setSalesUnitExpress: {
    query: 'mutation($i: SetSalesUnitExpressInput!) { setSalesUnitExpress(input: $i) { expressEnabled userErrors { code } } }',
    variables: { i: { msn: '654321', enabled: false } },
  },
  createApiClient: {
    query: 'mutation($i: CreateApiClientInput!) { createApiClient(input: $i) { apiClient { clientSecret } userErrors { code } } }',
    variables: { i: { ownerKind: 'MERCHANT', ownerId: '0b0e8a5c-1f4e-4c57-9d1a-000000654321' } },
  },
  createWalletClient: {
    query: 'mutation($i: CreateWalletClientInput!) { createWalletClient(input: $i) { walletClient { clientSecret } userErrors { code } } }',
    variables: { i: {} },
  },
  createPsp: {
    query: 'mutation($i: CreatePspInput!) { createPsp(input: $i) { psp { pspId } userErrors { code } } }',
    variables: { i: { name: 'Intruder PSP' } },
  },
  connectSalesUnit: {
    query: 'mutation($i: ConnectSalesUnitInput!) { connectSalesUnit(input: $i) { msn userErrors { code } } }',
    variables: { i: { partnerId: '100200', msn: '112233' } },
  },
  recordConsent: {
    query: 'mutation($i: ConsentInput!) { recordConsent(input: $i) { msns userErrors { code } } }',
    variables: { i: { merchantId: '0b0e8a5c-1f4e-4c57-9d1a-000000654321', partnerId: '100200' } },
  },
  withdrawConsent: {
    query: 'mutation($i: ConsentInput!) { withdrawConsent(input: $i) { msns userErrors { code } } }',
    variables: { i: { merchantId: '0b0e8a5c-1f4e-4c57-9d1a-000000123456', partnerId: '100200' } },
  },
  rotateClientSecret: {
    query: 'mutation($i: RotateClientSecretInput!) { rotateClientSecret(input: $i) { clientSecret userErrors { code } } }',
    variables: { i: { clientId: 'test-client-654321' } },
  },
  retireClientSecret: {
    query: 'mutation($i: RetireClientSecretInput!) { retireClientSecret(input: $i) { clientId userErrors { code } } }',
    variables: { i: { clientId: 'test-client-654321' } },
  },
  registerTrustedDocuments: {
    query: 'mutation($i: RegisterTrustedDocumentsInput!) { registerTrustedDocuments(input: $i) { registered userErrors { code } } }',
    variables: { i: { manifest: '{"intruder":"{ __typename }"}' } },
  },
  pruneData: {
    query: 'mutation($i: PruneDataInput!) { pruneData(input: $i) { results { kind rows } userErrors { code } } }',
    variables: { i: { dryRun: true } },
  },
};
