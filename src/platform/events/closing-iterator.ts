/**
 * An async iterator made of its `next` and its `close`: `return()` closes it and ends it, `throw()` closes it and
 * throws, as every stream behind a subscription ends when its client completes or its socket closes.
 */
export function closingIterator<T>(next: () => Promise<IteratorResult<T>>, close: () => unknown): AsyncIterableIterator<T> {
  const iterator: AsyncIterableIterator<T> = {
    next,
    return: async () => {
      await close();
      return { done: true, value: undefined };
    },
    throw: async (error: unknown) => {
      await close();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
