import { ChangeSetType, type EventSubscriber, type FlushEventArgs, type TransactionEventArgs } from '@mikro-orm/core';

/**
 * The ORM hook that tells this instance, right after a commit, that the commit carried outbox events: the cheap
 * local wake-up that replaces NOTIFY inside the writing transaction. A flush outside an explicit transaction has
 * committed by the time `afterFlush` runs; inside one, the transaction is remembered and the wake-up waits for its
 * commit. A savepoint's release counts as its commit, which may wake the bus before the outer transaction commits:
 * that read finds nothing yet, and the bus's next poll finds the event (a little later, never lost).
 */
export function commitWakeSubscriber(onCommitted: () => void): EventSubscriber {
  const awaitingCommit = new WeakSet<object>();
  return {
    afterFlush(args: FlushEventArgs): void {
      if (!args.uow.getChangeSets().some((cs) => cs.type === ChangeSetType.CREATE && cs.meta.tableName === 'domain_event')) return;
      const transaction = args.em.getTransactionContext<object>();
      if (transaction) awaitingCommit.add(transaction);
      else onCommitted();
    },
    afterTransactionCommit(args: TransactionEventArgs): void {
      const transaction = args.transaction as object | undefined;
      if (!transaction || !awaitingCommit.has(transaction)) return;
      awaitingCommit.delete(transaction);
      onCommitted();
    },
  };
}
