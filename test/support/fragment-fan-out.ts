/**
 * The hostile document of issue 20: each of `levels` fragments spreads the next one twice, so a walk that follows
 * every spread makes 2^levels visits of the last one, from a document of about 1 KB.
 */
export function fragmentFanOut(levels: number, operation: 'query' | 'subscription' = 'query'): string {
  const type = operation === 'query' ? 'Query' : 'Subscription';
  const leaf = operation === 'query' ? '__typename' : 'paymentEvents { __typename }';
  const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on ${type} { ...F${i + 1} ...F${i + 1} }`);
  return [`${operation} FanOut { ...F0 }`, ...fragments, `fragment F${levels} on ${type} { ${leaf} }`].join('\n');
}
