import { AppError, type ErrorDetail } from '../errors/app-error.js';

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Collects every problem of a request, each naming its field, so one 400 lists them all. */
export class Checker {
  readonly details: ErrorDetail[] = [];

  fail(name: string, reason: string): void {
    this.details.push({ name, reason });
  }

  get ok(): boolean {
    return this.details.length === 0;
  }

  throwIfFailed(): void {
    if (!this.ok) throw AppError.validation(this.details);
  }

  /** An object field; absent is fine unless required. Returns the object only when it is one. */
  object(parent: Json, key: string, path: string, required: boolean): Json | undefined {
    const value = parent[key];
    if (value === undefined || value === null) {
      if (required) this.fail(path, 'Required');
      return undefined;
    }
    if (!isObject(value)) {
      this.fail(path, 'Must be an object');
      return undefined;
    }
    return value;
  }

  string(
    parent: Json,
    key: string,
    path: string,
    rule: { required?: boolean; min?: number; max?: number; pattern?: RegExp; patternText?: string } = {},
  ): string | undefined {
    const value = parent[key];
    if (value === undefined || value === null) {
      if (rule.required) this.fail(path, 'Required');
      return undefined;
    }
    if (typeof value !== 'string') {
      this.fail(path, 'Must be a string');
      return undefined;
    }
    if (rule.min !== undefined && value.length < rule.min) return this.reject(path, `Must be at least ${rule.min} characters`);
    if (rule.max !== undefined && value.length > rule.max) return this.reject(path, `Must be at most ${rule.max} characters`);
    if (rule.pattern && !rule.pattern.test(value)) return this.reject(path, `Must match ${rule.patternText ?? rule.pattern.source}`);
    return value;
  }

  enumeration<T extends string>(parent: Json, key: string, path: string, allowed: readonly T[], required: boolean): T | undefined {
    const value = this.string(parent, key, path, { required });
    if (value === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(value)) return this.reject(path, `Must be one of ${allowed.join(', ')}`);
    return value as T;
  }

  integer(parent: Json, key: string, path: string, rule: { required?: boolean; min?: number; max?: number } = {}): number | undefined {
    const value = parent[key];
    if (value === undefined || value === null) {
      if (rule.required) this.fail(path, 'Required');
      return undefined;
    }
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) return this.reject(path, 'Must be an integer');
    if (rule.min !== undefined && value < rule.min) return this.reject(path, `Must be at least ${rule.min}`);
    if (rule.max !== undefined && value > rule.max) return this.reject(path, `Must be at most ${rule.max}`);
    return value;
  }

  boolean(parent: Json, key: string, path: string): boolean | undefined {
    const value = parent[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') return this.reject(path, 'Must be true or false');
    return value;
  }

  private reject(path: string, reason: string): undefined {
    this.fail(path, reason);
    return undefined;
  }
}

/** `https://` or a custom app scheme (`myapp://`), as the public definition allows for return URLs. */
export function isHttpsOrAppUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (scheme === 'https') return url.hostname !== '';
  return scheme !== 'http' && /^[a-z][a-z0-9+.-]*$/.test(scheme) && !['javascript', 'data', 'file', 'vbscript'].includes(scheme);
}
