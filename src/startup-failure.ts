import { ConfigError } from './config.js';

/**
 * Why the service could not start, as the one line an operator reads in a container log, or undefined for a fault
 * of the service itself (whose stack trace is what its developers need). A configuration error names its variable;
 * a database that cannot be reached or refuses the login is a configuration error too (DATABASE_URL).
 */
export function startupRefusal(error: unknown): string | undefined {
  if (error instanceof ConfigError) return error.message;
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code === 'string' && DATABASE_UNREACHABLE.has(code)) {
    return `DATABASE_URL: cannot open the database (${code}: ${firstLine(error)})`;
  }
  if (code === 'EADDRINUSE' || code === 'EACCES') return `PORT: cannot listen (${code}: ${firstLine(error)})`;
  return undefined;
}

// Network failures of the driver, and PostgreSQL's SQLSTATEs for a login refused or a database that does not exist.
const DATABASE_UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', '28P01', '28000', '3D000']);

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? '';
}

/** Ends the process on a start-up failure: a refusal as one line on stderr and exit code 1, anything else thrown on. */
export function exitOnStartupFailure(error: unknown): never {
  const refusal = startupRefusal(error);
  if (refusal === undefined) throw error;
  process.stderr.write(`paygraph: ${refusal}\n`);
  process.exit(1);
}
