/**
 * The operation's name as the client sent it, for the metrics: `operationName`, else the document's first named
 * operation, else `anonymous`.
 */
export function operationNameOf(body: unknown): string {
  const { operationName, query } = (body ?? {}) as { operationName?: unknown; query?: unknown };
  if (typeof operationName === 'string' && operationName !== '') return operationName.slice(0, 100);
  const named = typeof query === 'string' ? /\b(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/.exec(query) : null;
  return named?.[1]?.slice(0, 100) ?? 'anonymous';
}
