import fc from 'fast-check';

/**
 * Requests a fuzz test keeps in flight. The service answers many clients at once; one at a time, the thousands of
 * malformed requests spent most of their time in round trips (about 180 s for the REST routes on PostgreSQL).
 */
export const FUZZ_CONCURRENCY = 16;

/**
 * Runs `work` on every item, at most `concurrency` at a time. After the first failure no further item starts; the
 * ones in flight finish, and the failure of the earliest item is thrown.
 */
export async function forEachConcurrently<T>(
  items: readonly T[],
  work: (item: T, index: number) => Promise<void>,
  concurrency = FUZZ_CONCURRENCY,
): Promise<void> {
  let next = 0;
  const failures: { index: number; error: unknown }[] = [];
  const lane = async () => {
    while (next < items.length && failures.length === 0) {
      const index = next++;
      try {
        await work(items[index]!, index);
      } catch (error) {
        failures.push({ index, error });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  if (failures.length > 0) throw failures.sort((a, b) => a.index - b.index)[0]!.error;
}

type Arbitraries<Ts extends unknown[]> = { [K in keyof Ts]: fc.Arbitrary<Ts[K]> };

/** One property of a fuzz test: what `fc.assert(fc.asyncProperty(...arbitraries, predicate), { numRuns, seed })` checks. */
export interface Property<Ts extends [unknown, ...unknown[]]> {
  arbitraries: Arbitraries<Ts>;
  predicate: (...args: Ts) => Promise<void>;
  numRuns: number;
  seed: number;
}

/** A property with its types erased, so properties over different arbitraries go into one list. */
export function property<Ts extends [unknown, ...unknown[]]>(
  arbitraries: Arbitraries<Ts>,
  predicate: (...args: Ts) => Promise<void>,
  options: { numRuns: number; seed: number },
): Property<[unknown, ...unknown[]]> {
  return { arbitraries, predicate, ...options } as unknown as Property<[unknown, ...unknown[]]>;
}

/**
 * `fc.assert` for each property, with the cases sent concurrently: the `numRuns` cases fast-check draws from each
 * property's `seed`, all properties' cases in one queue, `FUZZ_CONCURRENCY` at a time. When a case fails, its property
 * runs again through `fc.assert`, one case at a time, so the failure is reported by fast-check itself (seed,
 * counterexample, shrunk); a case that fails only beside others is reported with its index and its values.
 */
export async function assertConcurrently(properties: readonly Property<[unknown, ...unknown[]]>[]): Promise<void> {
  const tuples = properties.map((p) => fc.tuple(...p.arbitraries) as fc.Arbitrary<unknown[]>);
  const cases = properties.flatMap((p, which) =>
    fc.sample(tuples[which]!, { numRuns: p.numRuns, seed: p.seed }).map((values, index) => ({ which, index, values })),
  );
  try {
    await forEachConcurrently(cases, async ({ which, index, values }) => {
      try {
        await properties[which]!.predicate(...(values as [unknown, ...unknown[]]));
      } catch (error) {
        throw new CaseFailure(which, index, values, error);
      }
    });
  } catch (failure) {
    if (!(failure instanceof CaseFailure)) throw failure;
    const { predicate, numRuns, seed } = properties[failure.which]!;
    await fc.assert(
      fc.asyncProperty(tuples[failure.which]!, (values) => predicate(...(values as [unknown, ...unknown[]]))),
      { numRuns, seed },
    );
    const message = failure.error instanceof Error ? failure.error.message : String(failure.error);
    throw new Error(
      `case ${failure.index} of ${numRuns} (seed ${seed}) failed beside others and passes alone: ${fc.stringify(failure.values)}\n${message}`,
      { cause: failure.error },
    );
  }
}

class CaseFailure extends Error {
  constructor(
    readonly which: number,
    readonly index: number,
    readonly values: unknown,
    readonly error: unknown,
  ) {
    super(`case ${index} of property ${which} failed`);
  }
}
