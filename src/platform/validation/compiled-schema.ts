import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { ErrorDetail } from '../errors/app-error.js';
import { controlCharacterDetails } from './control-characters.js';
import { errorDetails, sortByDeclaration } from './error-details.js';
import { duplicateKeysOf, numberTextOf, withDuplicateKeys } from './json-text.js';

/** A schema compiled once, checking a value and naming every failing field as a dotted path (`amount.value`). */
export interface CompiledSchema<S extends TSchema> {
  readonly schema: S;
  /**
   * The value as declared (`asDeclared`), and one detail per failing field, in the order the schema declares
   * them; a string with a control character anywhere in `raw` is a failing field too. `value` is only trustworthy
   * when `details` is empty.
   */
  check(raw: unknown, at?: string): { value: Static<S>; details: ErrorDetail[] };
  /** Puts details (the schema's and those of rules about single fields) in the order the schema declares the fields. */
  sort(details: ErrorDetail[], at?: string): ErrorDetail[];
}

export function compileSchema<S extends TSchema>(schema: S): CompiledSchema<S> {
  const validator = Compile(schema);
  return {
    schema,
    check(raw, at = '') {
      const value = asDeclared(schema, raw);
      const details = validator.Check(value) ? [] : errorDetails(schema, validator.Errors(value), at);
      const control = controlCharacterDetails(raw, at).filter((c) => !details.some((d) => d.name === c.name));
      return { value: value as Static<S>, details: control.length > 0 ? sortByDeclaration(schema, [...details, ...control], at) : details };
    },
    sort: (details, at = '') => sortByDeclaration(schema, details, at),
  };
}

/**
 * The annotation giving a string field other names real clients send for its values, taken as the declared ones:
 * `{ 'x-aliases': { VIPPS_PA_NETT: 'SVC_PA_NETT' } }`. Published with the schema, so the OpenAPI document says so.
 */
export const ALIASES = 'x-aliases';

interface SchemaNode {
  type?: unknown;
  [ALIASES]?: Record<string, string>;
  anyOf?: SchemaNode[];
  properties?: Record<string, SchemaNode>;
  patternProperties?: Record<string, SchemaNode>;
  additionalProperties?: unknown;
  items?: SchemaNode;
}

/**
 * The value in the JSON types the schema declares, read as the platform reads real clients' bodies (one rule for
 * every field of every body):
 * - `null` (and, in process, `undefined`) where the schema names a property means absent, as clients mean it;
 * - a number where only a string is declared is its decimal text exactly as written in the body (a 19-digit
 *   `reference`, a PHP integer `metadata.orderid`), not the double JSON.parse made of it;
 * - a string of digits where an integer is declared is that integer (`"amount": "200"`), when it is exact;
 * - a value the schema names an alias of (`ALIASES`) is the value it stands for.
 * Anything else is left as sent, for the schema to refuse.
 */
function asDeclared(schema: TSchema, value: unknown, holder?: object, key?: string): unknown {
  const node = schema as SchemaNode;
  if (typeof value === 'number' && declares(node, 'string') && !declares(node, 'number') && !declares(node, 'integer')) {
    return (holder && key !== undefined ? numberTextOf(holder, key) : undefined) ?? String(value);
  }
  if (typeof value === 'string' && node[ALIASES] && Object.hasOwn(node[ALIASES], value)) return node[ALIASES][value];
  if (typeof value === 'string' && declares(node, 'integer') && !declares(node, 'string') && /^-?[0-9]{1,16}$/.test(value)) {
    const integer = Number(value);
    if (Number.isSafeInteger(integer)) return integer;
  }
  if (Array.isArray(value)) return node.items ? value.map((item, i) => asDeclared(node.items!, item, value, String(i))) : value;
  if (typeof value !== 'object' || value === null) return value;
  const element = node.patternProperties
    ? Object.values(node.patternProperties)[0]
    : typeof node.additionalProperties === 'object'
      ? (node.additionalProperties as SchemaNode)
      : undefined;
  if (!node.properties && !element) return value;
  const kept: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(value)) {
    const property = node.properties?.[name];
    if (property && (item === null || item === undefined)) continue;
    const declared = property ?? element;
    kept[name] = declared ? asDeclared(declared as TSchema, item, value, name) : item;
  }
  // The keys written twice stay known to the rules that refuse them.
  return withDuplicateKeys(kept, duplicateKeysOf(value));
}

function declares(node: SchemaNode, type: string): boolean {
  if (node.type === type || (Array.isArray(node.type) && node.type.includes(type))) return true;
  return node.anyOf?.some((branch) => declares(branch, type)) ?? false;
}
