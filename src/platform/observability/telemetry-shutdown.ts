/**
 * What must run before the process exits so no telemetry is lost (the tracing SDK's last batch of spans). The
 * tracing hooks load before the service (`--import`) and register here; main.ts runs them after its shutdown.
 */
const flushers: (() => Promise<void>)[] = [];

export function onTelemetryShutdown(flush: () => Promise<void>): void {
  flushers.push(flush);
}

export async function shutdownTelemetry(): Promise<void> {
  await Promise.allSettled(flushers.map((flush) => flush()));
}
