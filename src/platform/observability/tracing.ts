import { register } from 'node:module';
import { onTelemetryShutdown } from './telemetry-shutdown.js';

/**
 * OpenTelemetry tracing, loaded before the service with `node --import ./dist/src/platform/observability/tracing.js`
 * (instrumentation must patch `node:http`, `pg` and `graphql` before anything imports them, which a module of the
 * service itself is too late for). Idle unless OTEL_EXPORTER_OTLP_ENDPOINT is set: then spans of incoming and
 * outgoing HTTP, PostgreSQL queries and GraphQL operations go over OTLP/HTTP to that endpoint, configured by the
 * standard OTEL_* variables (OTEL_SERVICE_NAME defaults to `paygraph`).
 */
if (process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
  // ESM modules are patched through import-in-the-middle's loader hook; CommonJS ones (pg) through require.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const [{ NodeSDK }, { OTLPTraceExporter }, { HttpInstrumentation }, { PgInstrumentation }, { GraphQLInstrumentation }] =
    await Promise.all([
      import('@opentelemetry/sdk-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/instrumentation-http'),
      import('@opentelemetry/instrumentation-pg'),
      import('@opentelemetry/instrumentation-graphql'),
    ]);
  process.env.OTEL_SERVICE_NAME ??= 'paygraph';
  const sdk = new NodeSDK({
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [
      new HttpInstrumentation({
        // Probes and scrapes are not traffic.
        ignoreIncomingRequestHook: (req) => req.url === '/healthz' || req.url === '/readyz',
      }),
      new PgInstrumentation({ requireParentSpan: true }),
      new GraphQLInstrumentation({ mergeItems: true, ignoreTrivialResolveSpans: true }),
    ],
  });
  sdk.start();
  onTelemetryShutdown(() => sdk.shutdown());
}
