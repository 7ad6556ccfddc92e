import { loadConfig, type Config } from './config.js';
import { listenForMetrics } from './platform/observability/metrics-endpoint.js';
import { shutdownTelemetry } from './platform/observability/telemetry-shutdown.js';
import { exitOnStartupFailure } from './startup-failure.js';

// The configuration is checked before the service's modules load (seconds of CPU): a refused start answers at once.

const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    return exitOnStartupFailure(error);
  }
})();
// Before the database opens: a taken metrics port is known at once.
const metricsEndpoint = await listenForMetrics(config.metricsPort).catch((error: unknown) => metricsUnavailable(config, error));
const { createApp } = await import('./app.js');
const app = await createApp(config).catch(exitOnStartupFailure);
const port = await app.listen(config.port).catch(exitOnStartupFailure);
metricsEndpoint?.serve(app.metrics);
const database = config.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `PGlite in ${config.dataDir}`;
logInfo('listening', {
  port,
  env: config.env,
  database,
  publicUrl: config.publicUrl,
  dashboard: `${config.publicUrl}/dashboard`,
  metrics: metricsEndpoint ? `port ${metricsEndpoint.port}, /metrics` : 'off',
  jobs: config.runJobs ? `running, every ${config.jobIntervalMs} ms` : 'off (PAYGRAPH_RUN_JOBS=false)',
});
if (config.env === 'test') {
  const { testMerchantClients, testPartner, testPsp } = await import('./merchants/merchants.seed.js');
  const { testUsers } = await import('./wallet/wallet.seed.js');
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
    const started = performance.now();
    logInfo('stopping', {
      signal,
      drain: `readyz answers 503 and no new connection is taken; requests in flight get up to ${config.shutdownTimeoutMs} ms`,
    });
    void app
      .shutdown(config.shutdownTimeoutMs)
      .then(async (report) => {
        await metricsEndpoint?.close();
        logInfo('stopped', {
          signal,
          durationMs: Math.round(performance.now() - started),
          requests: report.requestsCut
            ? `cut after ${config.shutdownTimeoutMs} ms (PAYGRAPH_SHUTDOWN_TIMEOUT_MS): some were still in flight`
            : 'every request in flight answered',
          subscriptions: `${report.subscriptionSockets} socket(s) closed with 1012 Service Restart (clients reconnect elsewhere)`,
          jobs: report.jobsStopped ? 'stopped; claimed deliveries finished' : 'not run here (PAYGRAPH_RUN_JOBS=false)',
          metrics: metricsEndpoint ? `port ${metricsEndpoint.port} closed` : 'off',
        });
      })
      .then(shutdownTelemetry)
      .finally(() => process.exit(0));
  });
}

function logInfo(msg: string, fields: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg, ...fields })}\n`);
}

/**
 * METRICS_PORT held by another process: production refuses to start (one line, exit 1), as for any configuration it
 * cannot honour; the test environment (a developer's machine, where a second checkout may hold 9464) starts without
 * metrics and says so once.
 */
function metricsUnavailable(settings: Config, error: unknown): undefined {
  const code = String((error as { code?: unknown }).code);
  const reason = `METRICS_PORT: cannot listen on ${settings.metricsPort} (${code}: ${(error as Error).message})`;
  if (settings.env === 'production') {
    process.stderr.write(`paygraph: ${reason}\n`);
    process.exit(1);
  }
  process.stderr.write(`paygraph: warning: ${reason}; metrics are off (the test environment starts anyway, production refuses)\n`);
  return undefined;
}
