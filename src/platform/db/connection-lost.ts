import { AppError } from '../errors/app-error.js';

/** How long a client waits before it retries: the pool replaces a lost connection at its next query. */
export const RETRY_AFTER_SECONDS = 1;

/**
 * SQLSTATE classes and codes of a connection that is gone or cannot be had: 08 (connection exception), 57P01-57P03
 * (the server ended the backend, crashed, or is starting), 53300 (too many connections).
 */
const LOST_SQLSTATE = /^(08...|57P0[123]|53300)$/;
/** The socket's own failures, as Node reports them. */
const LOST_SOCKET = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND']);
/** What node-postgres says when it loses a connection, or cannot get one, without a code. */
const LOST_MESSAGE =
  /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Client was closed)/;

/**
 * Whether a failure is the database connection, not the request: the server ended the backend
 * (`pg_terminate_backend`, a restart, a failover), the socket dropped, or no connection could be had. Nothing of the
 * request committed, and the same request may well succeed a moment later. Walks the chain of causes, as a driver's
 * error travels wrapped (MikroORM's DriverException copies the driver error's fields).
 */
export function isConnectionLost(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 5; at = at.cause, depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string' && (LOST_SQLSTATE.test(code) || LOST_SOCKET.has(code))) return true;
    if (LOST_MESSAGE.test(at.message)) return true;
  }
  return false;
}

/** The answer to a request whose database connection was lost: 503, retry shortly. */
export class DatabaseUnavailable extends AppError {
  constructor(cause: unknown) {
    super('SERVICE_UNAVAILABLE', 'The database connection was lost; nothing was changed, retry after the Retry-After seconds', [], {
      cause,
    });
  }
  override get headers(): Record<string, string> {
    return { 'retry-after': String(RETRY_AFTER_SECONDS) };
  }
}
