import { createApp } from './app.js';
import { loadConfig } from './config.js';
import { shutdownTelemetry } from './platform/observability/telemetry-shutdown.js';
import { exitOnStartupFailure } from './startup-failure.js';
import { testMerchantClients, testPartner, testPsp } from './merchants/merchants.seed.js';
import { testUsers } from './wallet/wallet.seed.js';

const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    return exitOnStartupFailure(error);
  }
})();
const app = await createApp(config).catch(exitOnStartupFailure);
const port = await app.listen(config.port).catch(exitOnStartupFailure);
await app.metrics.serve(config.metricsPort).catch((error: unknown) => {
  const code = (error as { code?: unknown }).code;
  process.stderr.write(`paygraph: METRICS_PORT: cannot listen (${String(code)}: ${(error as Error).message})\n`);
  process.exit(1);
});
const database = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${config.dataDir}`;
process.stdout.write(
  `${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: 'listening', port, env: config.env, database, publicUrl: config.publicUrl, dashboard: `${config.publicUrl}/dashboard` })}\n`,
);
if (config.env === 'test') {
  process.stdout.write(
    [
      'Test environment. Demo credentials (POST /accesstoken/get with headers client_id, client_secret, Ocp-Apim-Subscription-Key):',
      ...testMerchantClients.map(
        (m) => `  MSN ${m.msn}: client_id ${m.clientId}, client_secret ${m.clientSecret}, subscription key ${m.subscriptionKey}`,
      ),
      `  partner ${testPartner.id}: client_id ${testPartner.clientId}, client_secret ${testPartner.clientSecret}, subscription key ${testPartner.subscriptionKey}; names the MSN per request (${testPartner.salesUnits.map((u) => u.msn).join(', ')})`,
      `  PSP (Psp-Id ${testPsp.id}): client_id ${testPsp.clientId}, client_secret ${testPsp.clientSecret}, subscription key ${testPsp.subscriptionKey}`,
      `Test users: ${testUsers.map((u) => `${u.phoneNumber}${u.approvedPaymentsCount > 0 ? ' (force approve ready)' : ' (approve once on the landing page first)'}`).join(', ')}`,
      `GraphQL: ${config.publicUrl}/graphql`,
      `Dashboard: ${config.publicUrl}/dashboard (front page with every link: ${config.publicUrl}/)`,
      '',
    ].join('\n'),
  );
}

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    void app
      .shutdown(config.shutdownTimeoutMs)
      .then(shutdownTelemetry)
      .finally(() => process.exit(0));
  });
}
