/**
 * How authentication and header rules read a request's headers, whatever carries them: an HTTP request, or the
 * `connection_init` payload of a graphql-ws socket (values under the HTTP header names). Names are matched
 * without regard to case; an empty value counts as absent, since real clients send empty optional headers.
 */
export type HeaderLookup = (name: string) => string | undefined;

/** A lookup over name/value pairs; values that are not strings (in a socket payload) count as absent. */
export function headerLookup(values: Readonly<Record<string, unknown>>): HeaderLookup {
  const byName = new Map<string, string>();
  for (const [name, value] of Object.entries(values)) {
    const text = Array.isArray(value) ? value[0] : value;
    if (typeof text === 'string' && !byName.has(name.toLowerCase())) byName.set(name.toLowerCase(), text);
  }
  return (name) => {
    const trimmed = byName.get(name.toLowerCase())?.trim();
    return trimmed === undefined || trimmed === '' ? undefined : trimmed;
  };
}
