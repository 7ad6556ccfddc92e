/**
 * JSON as clients wrote it. `JSON.parse` turns `"reference": 1234567890123456789` into a double that is no longer the
 * number sent; the request-shape layer takes a number where a string is declared as its text, so the text of every
 * number is kept beside the parsed value, keyed by the object (or array) that holds it and its key there.
 */
const numberTexts = new WeakMap<object, Map<string, string>>();

/**
 * Keys an object was written with more than once. `JSON.parse` keeps the last value of a repeated key and says
 * nothing; a rule that refuses repeated keys (ePayment's metadata, FACTS §14.3) reads them here.
 */
const repeatedKeys = new WeakMap<object, readonly string[]>();

/** The keys `holder` was written with more than once, when it came from `parseJson` (or was marked so). */
export function duplicateKeysOf(holder: unknown): readonly string[] {
  return (typeof holder === 'object' && holder !== null && repeatedKeys.get(holder)) || [];
}

/** Marks `holder` as written with these keys more than once (a face that reads a list of pairs into an object). */
export function withDuplicateKeys<T extends object>(holder: T, keys: readonly string[]): T {
  if (keys.length > 0) repeatedKeys.set(holder, keys);
  return holder;
}

/**
 * Parses JSON, remembering each number's source text (Node 22's reviver `context.source`) and each object's repeated
 * keys. Throws as JSON.parse does.
 */
export function parseJson(text: string): unknown {
  const value = parseKeepingNumberTexts(text);
  for (const { path, keys } of repeatedKeysIn(text)) {
    let holder: unknown = value;
    for (const step of path) holder = typeof holder === 'object' && holder !== null ? (holder as Record<string, unknown>)[step] : undefined;
    if (typeof holder === 'object' && holder !== null && !Array.isArray(holder)) withDuplicateKeys(holder, keys);
  }
  return value;
}

function parseKeepingNumberTexts(text: string): unknown {
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

interface Frame {
  kind: 'object' | 'array';
  /** The key or index of this value in its holder (undefined for the top). */
  at: string | undefined;
  seen: Set<string>;
  repeated: Set<string>;
  index: number;
}

/**
 * The objects of a JSON text that repeat a key, by their path from the top. `text` is valid JSON (JSON.parse
 * accepted it), so the scan trusts its structure. Iterative: a deeply nested body cannot exhaust the stack.
 */
function repeatedKeysIn(text: string): { path: string[]; keys: string[] }[] {
  // Most bodies have no object repeating a key; a text without two equal quoted strings at all cannot, but finding
  // that costs the same scan, so the scan is the check.
  const found: { path: string[]; keys: string[] }[] = [];
  const stack: Frame[] = [];
  let pendingKey: string | undefined;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i;
      let escaped = false;
      for (i++; text.charCodeAt(i) !== 0x22; i++) {
        if (text.charCodeAt(i) === 0x5c /* \ */) {
          escaped = true;
          i++;
        }
      }
      const top = stack[stack.length - 1];
      if (expectKey && top?.kind === 'object') {
        const raw = text.slice(start + 1, i);
        const key = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : raw;
        if (top.seen.has(key)) top.repeated.add(key);
        else top.seen.add(key);
        pendingKey = key;
        expectKey = false;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      const top = stack[stack.length - 1];
      const at = top === undefined ? undefined : top.kind === 'object' ? pendingKey : String(top.index);
      stack.push({ kind: c === 0x7b ? 'object' : 'array', at, seen: new Set(), repeated: new Set(), index: 0 });
      expectKey = c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      const done = stack.pop()!;
      if (done.repeated.size > 0) {
        const path = [...stack.slice(1).map((f) => f.at!), ...(done.at === undefined ? [] : [done.at])];
        found.push({ path, keys: [...done.repeated] });
      }
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.kind === 'object') expectKey = true;
      else if (top) top.index++;
    }
  }
  return found;
}
