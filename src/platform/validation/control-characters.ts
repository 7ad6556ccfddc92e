import type { ErrorDetail } from '../errors/app-error.js';
import { dottedPath } from './error-details.js';

/**
 * C0 control characters but tab, line feed and carriage return, which text may carry (a receipt line, an address).
 * None of the rest is text any client means to send, and U+0000 cannot be stored in a PostgreSQL text at all: every
 * string input is refused with them where it enters (bodies, path and query parameters, forms, graph inputs).
 */
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

export const CONTROL_CHARACTER_REASON = 'Must not contain control characters (U+0000 to U+001F other than tab, CR and LF)';

export function hasControlCharacter(text: string): boolean {
  return CONTROL_CHARACTER.test(text);
}

interface Place {
  value: unknown;
  /** Where the value sits, as a chain to the root, so no path is built unless it is reported. */
  key?: string;
  parent?: Place;
}

/**
 * One detail per string (value or object key) with a control character, named by its path under `at`. Walked with
 * a stack of its own: a body may nest deeper than the call stack goes.
 */
export function controlCharacterDetails(value: unknown, at: string): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const report = (place: Place, reason: string) => details.push({ name: dottedPath(at, segmentsOf(place)), reason });
  const pending: Place[] = [{ value }];
  for (let place = pending.pop(); place; place = pending.pop()) {
    const item = place.value;
    if (typeof item === 'string') {
      if (hasControlCharacter(item)) report(place, CONTROL_CHARACTER_REASON);
    } else if (Array.isArray(item)) {
      for (let i = item.length - 1; i >= 0; i--) pending.push({ value: item[i], key: String(i), parent: place });
    } else if (typeof item === 'object' && item !== null) {
      const entries = Object.entries(item);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        if (hasControlCharacter(key)) report(place, `Keys: ${CONTROL_CHARACTER_REASON}`);
        else pending.push({ value: child, key, parent: place });
      }
    }
  }
  return details;
}

function segmentsOf(place: Place): string[] {
  const segments: string[] = [];
  for (let at: Place | undefined = place; at?.key !== undefined; at = at.parent) segments.push(at.key);
  return segments.reverse();
}
