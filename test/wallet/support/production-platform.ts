import { join } from 'node:path';
import { cliCommands } from '../../../src/operator/cli-commands.js';
import { forkEm } from '../../../src/platform/db/orm.js';
import type { ClientCredentials } from '../../support/principal-client.js';
import { startTestApp, type TestApp } from '../../support/test-app.js';

/** An app started with PAYGRAPH_ENV=production: it seeds nothing, so its database starts empty of tenants and clients. */
export function startProductionApp(): Promise<TestApp> {
  return startTestApp({}, { PAYGRAPH_ENV: 'production', PAYGRAPH_TOKEN_SECRET: 'wallet-production-token-secret-of-40-bytes' });
}

/**
 * A command of the operator's command line (`npm run paygraph -- <name> --<option> ...`), run as the CLI runs it
 * once it has opened the database: on the test app's own database, which on the embedded PGlite no second process
 * can open (test/operations/onboarding-cli.test.ts runs the real process on PostgreSQL).
 */
export async function operatorCommand(
  t: TestApp,
  name: string,
  options: Record<string, string | boolean> = {},
): Promise<Record<string, unknown>> {
  const command = cliCommands.find((c) => c.name === name);
  if (!command) throw new Error(`no CLI command ${name}`);
  return command.run({ em: forkEm(t.app.services.orm), actor: 'ops@example.com', now: new Date() }, options, t.app.services.config, {
    retention: t.app.services.retention ?? [],
  });
}

export interface OnboardedShop {
  msn: string;
  shopName: string;
  merchant: ClientCredentials & { msn: string };
  wallet: ClientCredentials;
}

/** From the empty database: the business registry, a merchant, its sales unit and API client, and a wallet app's client. */
export async function onboardShopAndWallet(t: TestApp): Promise<OnboardedShop> {
  await operatorCommand(t, 'import-registry', { file: join(process.cwd(), 'samples/enhetsregisteret/enheter_sample.json') });
  const merchant = await operatorCommand(t, 'create-merchant', { 'org-number': '931000004' });
  const shopName = 'Eksempelbutikken nett';
  const unit = await operatorCommand(t, 'create-sales-unit', { 'merchant-id': String(merchant.merchantId), name: shopName });
  const client = await operatorCommand(t, 'create-client', { 'merchant-id': String(merchant.merchantId) });
  const wallet = await operatorCommand(t, 'create-wallet-client', { 'client-id': 'wallet-app-prod' });
  const credentials = (issued: Record<string, unknown>): ClientCredentials => ({
    clientId: String(issued.clientId),
    clientSecret: String(issued.clientSecret),
    subscriptionKey: String(issued.subscriptionKey),
  });
  return { msn: String(unit.msn), shopName, merchant: { msn: String(unit.msn), ...credentials(client) }, wallet: credentials(wallet) };
}
