/**
 * JSON as clients wrote it. `JSON.parse` turns `"reference": 1234567890123456789` into a double that is no longer the
 * number sent; the request-shape layer takes a number where a string is declared as its text, so the text of every
 * number is kept beside the parsed value, keyed by the object (or array) that holds it and its key there.
 */
const numberTexts = new WeakMap<object, Map<string, string>>();

/** Parses JSON, remembering each number's source text (Node 22's reviver `context.source`). Throws as JSON.parse does. */
export function parseJson(text: string): unknown {
  return JSON.parse(text, function keepNumberText(this: object, key: string, value: unknown, context?: { source?: string }) {
    if (typeof value === 'number' && context?.source !== undefined) {
      let texts = numberTexts.get(this);
      if (!texts) numberTexts.set(this, (texts = new Map()));
      texts.set(key, context.source);
    }
    return value;
  }) as unknown;
}

/** The number at `holder[key]` as it was written in the body, when it came from `parseJson`. */
export function numberTextOf(holder: object, key: string): string | undefined {
  return numberTexts.get(holder)?.get(key);
}
