import { isJsonObject } from './declare-body.js';

/**
 * `null` anywhere reads as absent. The public definitions' optional parts are nullable on REST, and the graph gives an
 * optional input field a client sent as null as null: both faces then meet the same body schema, which treats both
 * as absent.
 */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (!isJsonObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) if (inner !== null && inner !== undefined) out[key] = withoutNulls(inner);
  return out;
}
