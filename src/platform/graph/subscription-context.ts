import { randomUUID } from 'node:crypto';
import { contextFor } from '../auth/request-context.js';
import type { Services } from '../context.js';
import { forkEm } from '../db/orm.js';
import type { GraphQLContext } from './graphql-context.js';
import type { Session } from './socket-session.js';
import { PerEvent } from './per-event.js';
import { actingFor } from '../auth/tenancy-scope.js';

/**
 * A context for one operation or one event of the socket's session: a fresh unit of work and fresh loaders. A
 * subscription lives for hours, and one identity map or loader cache for its whole life would serve stale rows.
 */
export function operationContext(services: Services, session: Session): GraphQLContext {
  return { services, request: contextFor(services, forkEm(services.orm), session.principal, session.scope, randomUUID()) };
}

/** Who asks: the principal and the sales unit it acts for. */
export function callerKeyOf(session: Session): string {
  return [session.principal.kind, session.principal.clientId, actingFor(session.scope) ?? ''].join('\n');
}

/**
 * One context per event and caller, shared by that caller's different operations on the event: like the fields of
 * one request, they share a unit of work and loaders, so the event's payment is read once for all the dashboards'
 * documents rather than once each. Still fresh per event; never shared between callers.
 */
export class EventContexts {
  private readonly contexts = new PerEvent<GraphQLContext>();

  constructor(private readonly services: Services) {}

  of(eventId: number | undefined, session: Session, callerKey: string): GraphQLContext {
    const make = () => operationContext(this.services, session);
    return eventId === undefined ? make() : this.contexts.get(eventId, callerKey, make);
  }
}
