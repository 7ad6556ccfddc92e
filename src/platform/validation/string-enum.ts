import Type, { type TUnsafe } from 'typebox';

/**
 * A string from a fixed list, declared as `{type: string, enum}`: a value of another type is told it must be a
 * string, a string outside the list is told the list.
 */
export function stringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}
