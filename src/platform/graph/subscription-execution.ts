import { randomUUID } from 'node:crypto';
import { createSourceEventStream, execute, print, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { contextFor } from '../auth/request-context.js';
import type { Services } from '../context.js';
import { forkEm } from '../db/orm.js';
import type { GraphQLContext } from './graphql-context.js';
import type { Session } from './socket-session.js';

/** A context for one operation or one event of the socket's session: a fresh unit of work and fresh loaders. */
export function operationContext(services: Services, session: Session): GraphQLContext {
  return { services, request: contextFor(services, forkEm(services.orm), session.principal, session.scope, randomUUID()) };
}

/**
 * One event's result per operation, shared by every subscriber that holds the same operation (document,
 * variables, caller and sales unit): a dashboard opened a thousand times costs one execution per event, not a
 * thousand. Keyed weakly by the event object the bus hands to every subscriber, so it lives as long as the event.
 */
const sharedResults = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();

/**
 * Like graphql-js `subscribe`, except that each event runs with a fresh unit of work and fresh DataLoaders: a
 * subscription lives for hours, and one identity map or loader cache for its whole life would serve stale rows.
 */
export async function subscribeWithFreshContextPerEvent(
  services: Services,
  args: ExecutionArgs,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const stream = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in stream)) return stream;
  const iterator = stream[Symbol.asyncIterator]();
  const base = args.contextValue as GraphQLContext;
  const session: Session = { principal: base.request.principal, scope: base.request.scope };
  const operationKey = [
    session.principal.clientId,
    session.scope.actingFor ?? '',
    print(args.document),
    args.operationName ?? '',
    JSON.stringify(args.variableValues ?? {}),
  ].join('\n');
  const run = (event: unknown): Promise<ExecutionResult> => {
    const execution = () =>
      execute({ ...args, rootValue: event, contextValue: operationContext(services, session) }) as Promise<ExecutionResult>;
    if (typeof event !== 'object' || event === null) return execution();
    let byOperation = sharedResults.get(event);
    if (!byOperation) sharedResults.set(event, (byOperation = new Map()));
    let result = byOperation.get(operationKey);
    if (!result) byOperation.set(operationKey, (result = execution()));
    return result;
  };
  const results: AsyncIterableIterator<ExecutionResult> = {
    next: async () => {
      const result = await iterator.next();
      return result.done ? { done: true, value: undefined } : { done: false, value: await run(result.value) };
    },
    // Called when the client completes or the socket closes: must end a `next()` that is waiting for an event.
    return: async () => {
      await iterator.return?.();
      return { done: true, value: undefined };
    },
    throw: async (error: unknown) => {
      await iterator.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return results;
    },
  };
  return results;
}
