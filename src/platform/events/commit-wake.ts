import { ChangeSetType, type EventSubscriber, type FlushEventArgs, type TransactionEventArgs } from '@mikro-orm/core';
import type { Em } from '../db/orm.js';

/** The commit-wake hook, which the write runner calls itself for the outbox rows it wrote by SQL (`wakeAtCommit`). */
interface CommitWake extends EventSubscriber {
  wroteEvents(em: Em): void;
}

/**
 * The ORM hook that tells this instance, right after a commit, that the commit carried outbox events: the cheap
 * local wake-up that replaces NOTIFY inside the writing transaction. A flush outside an explicit transaction has
 * committed by the time `afterFlush` runs; inside one, the transaction is remembered and the wake-up waits for its
 * commit. A savepoint's release counts as its commit, which may wake the bus before the outer transaction commits:
 * that read finds nothing yet, and the bus's next poll finds the event (a little later, never lost).
 */
export function commitWakeSubscriber(onCommitted: () => void): EventSubscriber {
  const awaitingCommit = new WeakSet<object>();
  const wroteEvents = (em: Pick<Em, 'getTransactionContext'>) => {
    const transaction = em.getTransactionContext<object>();
    if (transaction) awaitingCommit.add(transaction);
    else onCommitted();
  };
  const subscriber: CommitWake = {
    wroteEvents,
    afterFlush(args: FlushEventArgs): void {
      if (!args.uow.getChangeSets().some((cs) => cs.type === ChangeSetType.CREATE && cs.meta.tableName === 'domain_event')) return;
      wroteEvents(args.em);
    },
    afterTransactionCommit(args: TransactionEventArgs): void {
      const transaction = args.transaction as object | undefined;
      if (!transaction || !awaitingCommit.has(transaction)) return;
      awaitingCommit.delete(transaction);
      onCommitted();
    },
  };
  return subscriber;
}

/**
 * Called by the write runner (run-operation.ts) once its statements wrote outbox rows (no flush saw them): wakes
 * this instance's bus as a flush would, at once when they committed, or at the commit of the transaction they are in.
 */
export function wakeAtCommit(em: Em): void {
  for (const subscriber of em.getEventManager().getSubscribers())
    if ('wroteEvents' in subscriber) (subscriber as CommitWake).wroteEvents(em);
}
