import type { TSchema } from 'typebox';
import type { ErrorDetail } from '../errors/app-error.js';

/** What the compiled validator reports of one failure (TypeBox's `TValidationError`, the fields used here). */
export interface SchemaFailure {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: Record<string, unknown>;
}

/**
 * The annotation that gives a schema node its own reasons by keyword, where the generic sentence would not tell a
 * client what to send: `{ 'x-reasons': { pattern: 'Must match 8 to 50 letters, digits or "-"' } }`; `required` may name
 * a reason per missing property.
 */
export const REASONS = 'x-reasons';

type Node = Record<string, unknown>;

/** One detail per failing field (the first failure of each), ordered as the schema declares the fields. */
export function errorDetails(schema: TSchema, failures: readonly SchemaFailure[], at: string): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  const named = new Set<string>();
  const add = (name: string, reason: string) => {
    if (named.has(name)) return;
    named.add(name);
    details.push({ name, reason });
  };
  for (const failure of failures) {
    const node = nodeAt(schema, failure.schemaPath);
    const reasons = (node?.[REASONS] ?? {}) as Record<string, string | Record<string, string>>;
    const path = pointerSegments(failure.instancePath);
    if (failure.keyword === 'required') {
      for (const property of failure.params.requiredProperties as string[]) {
        const required = reasons.required;
        add(dottedPath(at, [...path, property]), (typeof required === 'object' ? required[property] : required) ?? 'Required');
      }
    } else if (failure.keyword !== 'anyOf' && failure.keyword !== 'oneOf') {
      const reason = reasons[failure.keyword];
      add(dottedPath(at, path), typeof reason === 'string' ? reason : defaultReason(failure, node));
    }
  }
  return sortByDeclaration(schema, details, at);
}

/** Details in the order the schema declares their fields; details of one field keep their order. */
export function sortByDeclaration(schema: TSchema, details: ErrorDetail[], at: string): ErrorDetail[] {
  const keys = new Map(details.map((d) => [d, declarationKey(schema, d.name, at)]));
  return details.sort((a, b) => compareKeys(keys.get(a)!, keys.get(b)!));
}

/** `amount.value`, `receipt.orderLines[0].name`; the whole body is `body`. */
export function dottedPath(at: string, segments: readonly string[]): string {
  let path = at;
  for (const segment of segments) {
    if (/^\d+$/.test(segment)) path += `[${segment}]`;
    else path += path === '' ? segment : `.${segment}`;
  }
  return path === '' ? 'body' : path;
}

function defaultReason(failure: SchemaFailure, node: Node | undefined): string {
  const limit = failure.params.limit as number;
  switch (failure.keyword) {
    case 'type':
      return typeReason(failure.params.type as string);
    case 'minLength':
      return `Must be at least ${limit} characters`;
    case 'maxLength':
      return `Must be at most ${limit} characters`;
    case 'minimum':
      return `Must be at least ${limit}`;
    case 'maximum':
      return `Must be at most ${limit}`;
    case 'minItems':
      return `Must have at least ${limit} items`;
    case 'maxItems':
      return `Must have at most ${limit} items`;
    case 'pattern':
      return `Must match ${String(node?.pattern ?? failure.params.pattern)}`;
    case 'enum':
      return `Must be one of ${(failure.params.allowedValues as unknown[]).join(', ')}`;
    default:
      return 'Is not valid here';
  }
}

function typeReason(type: string): string {
  switch (type) {
    case 'object':
      return 'Must be an object';
    case 'string':
      return 'Must be a string';
    case 'integer':
    case 'number':
      return 'Must be an integer';
    case 'boolean':
      return 'Must be true or false';
    case 'array':
      return 'Must be an array';
    default:
      return `Must be of type ${type}`;
  }
}

function pointerSegments(pointer: string): string[] {
  if (pointer === '' || pointer === '#') return [];
  return pointer
    .replace(/^#/, '')
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function nodeAt(schema: TSchema, schemaPath: string): Node | undefined {
  let node: unknown = schema;
  for (const segment of pointerSegments(schemaPath)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Node)[segment];
  }
  return typeof node === 'object' && node !== null ? (node as Node) : undefined;
}

/**
 * Where a field sits in the schema: at each level the position of the property among the declared ones (array
 * positions by index), so details read in the order the request is written, as the hand-written checks did.
 */
function declarationKey(schema: TSchema, name: string, at: string): number[] {
  const relative = at !== '' && name.startsWith(at) ? name.slice(at.length) : name;
  const segments = relative.split(/\.|\[|\]/).filter((s) => s !== '');
  const key: number[] = [];
  let node: Node | undefined = schema as Node;
  for (const segment of segments) {
    if (/^\d+$/.test(segment)) {
      key.push(Number(segment));
      node = node?.items as Node | undefined;
      continue;
    }
    const properties = node?.properties as Record<string, Node> | undefined;
    const position = properties ? Object.keys(properties).indexOf(segment) : -1;
    key.push(position === -1 ? Number.MAX_SAFE_INTEGER : position);
    node = properties?.[segment];
  }
  return key;
}

function compareKeys(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}
