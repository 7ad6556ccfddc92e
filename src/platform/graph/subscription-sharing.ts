import { execute, print, type ExecutionArgs, type ExecutionResult } from 'graphql';
import type { Services } from '../context.js';
import type { GraphQLContext } from './graphql-context.js';
import type { StartedExecution } from './executed-ahead.js';
import { EventContexts, callerKeyOf } from './subscription-context.js';
import { PerEvent } from './per-event.js';
import type { Session } from './socket-session.js';

/** An event's result for one operation, and its `next` payload as JSON, made once for every subscriber holding it. */
export interface SharedResult {
  result: ExecutionResult;
  /** The event's id, where its stream knows it: an HTTP stream's SSE `id` line, which `Last-Event-ID` resumes after. */
  eventId?: number;
  /** The payload as UTF-8 JSON, made by the first subscriber that writes it to a socket. */
  payload?: Buffer;
}

/** A subscription's operation as executions are shared: what it asks, and who asks. */
export interface SharedOperation {
  args: ExecutionArgs;
  session: Session;
  /** The caller (principal and sales unit): its operations on one event share a context. */
  callerKey: string;
  /** The caller, document, operation name and variables: subscribers holding it share each event's execution. */
  operationKey: string;
}

export function sharedOperation(args: ExecutionArgs): SharedOperation {
  const base = args.contextValue as GraphQLContext;
  const session: Session = { principal: base.request.principal, scope: base.request.scope };
  const callerKey = callerKeyOf(session);
  const operationKey = [callerKey, print(args.document), args.operationName ?? '', JSON.stringify(args.variableValues ?? {})].join('\n');
  return { args, session, callerKey, operationKey };
}

/**
 * One app's subscription executions: one per event and operation, shared by every subscriber that holds the same
 * operation, so a dashboard opened a thousand times costs one execution, and one serialization, per event, not a
 * thousand. An event is known by its id (EventKeyedStream); a stream whose values do not say theirs executes each
 * event for each subscriber.
 */
export class SharedExecutions {
  private readonly started = new PerEvent<StartedExecution<SharedResult>>();
  private readonly contexts: EventContexts;
  /** Executions started: one per event and operation, however many subscribers it serves (a metric). */
  executions = 0;

  constructor(services: Services) {
    this.contexts = new EventContexts(services);
  }

  /** The operation's execution of `event`, started now, or found started for another subscriber of the same event. */
  run(operation: SharedOperation, event: unknown, eventId: number | undefined): StartedExecution<SharedResult> {
    const start = () => this.start(operation, event, eventId);
    return eventId === undefined ? start() : this.started.get(eventId, operation.operationKey, start);
  }

  private start(operation: SharedOperation, event: unknown, eventId: number | undefined): StartedExecution<SharedResult> {
    this.executions++;
    const contextValue = this.contexts.of(eventId, operation.session, operation.callerKey);
    const execution = async (): Promise<SharedResult> => ({
      result: (await execute({ ...operation.args, rootValue: event, contextValue })) as ExecutionResult,
      eventId,
    });
    const shared: StartedExecution<SharedResult> = { promise: execution() };
    const settle = () => {
      for (const waiting of shared.waiting?.splice(0) ?? []) waiting();
    };
    shared.promise.then(
      (result) => {
        shared.settled = result;
        settle();
      },
      // Whoever reads it sees the failure; this also keeps it from counting as unhandled until then.
      (error: unknown) => {
        shared.failure = { error };
        settle();
      },
    );
    return shared;
  }
}
