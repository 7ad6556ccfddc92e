export interface RequestLogLine {
  method: string;
  path: string;
  status: number;
  durationMs: number;
  traceId: string;
  msn?: string;
  error?: string;
}

/** One structured line per request on stdout. */
export function logRequest(line: RequestLogLine): void {
  process.stdout.write(
    `${JSON.stringify({ time: new Date().toISOString(), level: line.status >= 500 ? 'error' : 'info', msg: 'request', ...line })}\n`,
  );
}

/** Something worth knowing that is no failure of ours (a client that went away or broke the protocol). */
export function logInfo(message: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: message, ...fields })}\n`);
}

export function logError(message: string, error: unknown, fields: Record<string, unknown> = {}): void {
  const detail = error instanceof Error ? { error: error.message, stack: error.stack } : { error: String(error) };
  process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: 'error', msg: message, ...fields, ...detail })}\n`);
}
