import type { SelectHTMLAttributes } from 'preact';

/** What went wrong, announced to a screen reader as it appears; nothing when all is well. */
export function Alert({ error }: { error: string | undefined | null }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

/** A table's column headings; a heading given as [label, class] takes that class (`num` aligns figures). */
export function ColumnHeads({ columns }: { columns: readonly (string | readonly [string, string])[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column) => {
          const [label, className] = typeof column === 'string' ? [column, undefined] : column;
          return (
            <th key={label} scope="col" class={className}>
              {label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}

/**
 * A filter's choices with "Any" (the empty value) first; an option given as [value, label] shows its label. The
 * select's own attributes (controlled or not, its name, its test id) pass through.
 */
export function AnyOf({
  options,
  ...select
}: { options: readonly (string | readonly [string, string])[] } & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <select {...select}>
      <option value="">Any</option>
      {options.map((option) => {
        const [value, label] = typeof option === 'string' ? [option, option] : option;
        return (
          <option key={value} value={value}>
            {label}
          </option>
        );
      })}
    </select>
  );
}
