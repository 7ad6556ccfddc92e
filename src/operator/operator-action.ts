import { randomUUID } from 'node:crypto';
import type { Em } from '../platform/db/orm.js';
import { recordEvent } from '../platform/events/record-event.js';

/** Who acted in the back office: the CLI's operating-system user (or `--actor`), or an operator credential. */
export type OperatorActor = string;

/**
 * Records one operator action in the outbox, in the transaction of the change: who, what, when, and the ids it
 * touched, never a secret or key. Actions about one sales unit carry its MSN; the others belong to no sales unit
 * (an empty MSN, which no webhook registration or subscriber matches: these are not merchants' events).
 */
export function recordOperatorAction(
  em: Em,
  action: { actor: OperatorActor; name: string; subject: Record<string, string | boolean | null>; msn?: string; at: Date },
): void {
  recordEvent(em, {
    streamType: 'operator-action',
    streamId: randomUUID(),
    msn: action.msn ?? '',
    name: `operator.${action.name}.v1`,
    payload: { actor: action.actor, action: action.name, subject: action.subject, at: action.at.toISOString() },
    occurredAt: action.at,
  });
}
