import { ROOT_CONTEXT, context, isSpanContextValid, propagation, trace } from '@opentelemetry/api';

/** The W3C `traceparent` of the span active now (a request's), or null when tracing is off or nothing is active. */
export function currentTraceParent(): string | null {
  const span = trace.getActiveSpan()?.spanContext();
  if (!span || !isSpanContextValid(span)) return null;
  return `00-${span.traceId}-${span.spanId}-0${(span.traceFlags & 1).toString()}`;
}

/**
 * Runs an outbound call in the trace a stored `traceparent` names: with tracing on, the HTTP client span joins that
 * trace (and its own `traceparent` header, child of it, goes out); the caller also sends the stored one, for when
 * tracing is off in this process.
 */
export function inTrace<T>(traceParent: string | null | undefined, run: () => Promise<T>): Promise<T> {
  if (!traceParent) return run();
  return context.with(propagation.extract(ROOT_CONTEXT, { traceparent: traceParent }), run);
}
