import { randomUUID } from 'node:crypto';
import type { Context as WsContext } from 'graphql-ws';
import type { Extra } from 'graphql-ws/use/ws';
import { headerLookup } from '../auth/header-lookup.js';
import { GRAPH_API_AUTH, GRAPH_API_HEADERS } from '../auth/merchant-api.js';
import type { Principal } from '../auth/principal.js';
import { createRequestContext } from '../auth/request-context.js';
import type { TenancyScope } from '../auth/tenancy.js';
import type { Services } from '../context.js';
import { AppError } from '../errors/app-error.js';

/** Who a socket authenticated as in `connection_init`; every operation on it acts within this scope. */
export interface Session {
  principal: Principal;
  scope: TenancyScope;
}
export type SocketExtra = { session: Session };
export type SocketContext = WsContext<Record<string, unknown>, Extra & Partial<SocketExtra>>;

/**
 * The `connection_init` payload carries the same credentials as an HTTP request, under the HTTP header names in
 * any case, and is checked by the same request-context rules. Anything wrong with them closes the socket with
 * 4403 before the ack, its reason saying what; failures of our own (the database is down) close it with 4500
 * instead, so a client can tell the two apart.
 */
export async function authenticateSocket(services: Services, ctx: SocketContext): Promise<boolean> {
  try {
    const { ctx: request } = await createRequestContext(services, headerLookup(ctx.connectionParams ?? {}), {
      traceId: randomUUID(),
      auth: GRAPH_API_AUTH,
      headers: GRAPH_API_HEADERS,
    });
    ctx.extra.session = { principal: request.principal, scope: request.scope };
    closeWhenTokenExpires(services, ctx, request.principal);
    return true;
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
    // graphql-ws would close with a bare "Forbidden": the client is told what the request front refused, as an HTTP
    // request is in its 401 or 403 body. The close graphql-ws sends after this one is ignored by ws.
    ctx.extra.socket.close(4403, closeReason(`Forbidden: ${error.message}`));
    return false;
  }
}

/** A close frame's reason is at most 123 bytes of UTF-8 (RFC 6455, section 5.5). */
export function closeReason(text: string): string {
  let reason = text;
  while (Buffer.byteLength(reason) > 123) reason = `${reason.slice(0, -2)}…`;
  return reason;
}

/**
 * A socket is as good as the token it was opened with: an HTTP request with that token would be refused after
 * `exp`, so the subscription ends then too, with the same 4403 as a bad token at `connection_init`. The client
 * reconnects with a fresh token.
 */
function closeWhenTokenExpires(services: Services, ctx: SocketContext, principal: Principal): void {
  if (principal.tokenExpiresAt === undefined) return;
  const socket = ctx.extra.socket;
  const timer = setTimeout(
    () => socket.close(4403, 'Access token expired'),
    Math.max(0, principal.tokenExpiresAt * 1000 - services.clock.now().getTime()),
  );
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

/** The session `authenticateSocket` stored; graphql-ws runs no operation on a socket before its ack. */
export function sessionOf(ctx: SocketContext): Session {
  const session = ctx.extra.session;
  if (!session) throw new Error('An operation ran on a socket that was not acknowledged');
  return session;
}
