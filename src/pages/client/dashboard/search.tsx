import { useEffect, useState } from 'preact/hooks';
import { formatDateTime, formatMoney } from '../shared/format.js';
import type { Graph } from '../shared/graph.js';
import { SEARCH, type SearchData, type SearchRow } from './queries.js';
import { formFromParams, graphFilter, paramsFromForm, type SearchForm } from './search-filter.js';
import { paymentHref, searchHref } from './use-hash-route.js';
import { paymentsCsv } from './search-csv.js';
import { Alert, AnyOf, ColumnHeads } from './parts.js';

const PAGE = 50;
/** A CSV export reads the search page by page, up to this many payments. */
const EXPORT_MAX = 5_000;
const STATES = ['CREATED', 'AUTHORIZED', 'ABORTED', 'EXPIRED', 'TERMINATED'];
export const OUTCOMES: [string, string][] = [
  ['PENDING', 'Waiting for the user'],
  ['RESERVED', 'Reserved'],
  ['CAPTURED', 'Captured'],
  ['REFUNDED', 'Refunded'],
  ['CANCELLED', 'Cancelled'],
  ['EXPIRED', 'Expired'],
  ['ABORTED', 'Aborted by the user'],
];

/** An outcome in the dashboard's words (`CAPTURED`: Captured). */
export function outcomeLabel(outcome: string): string {
  return OUTCOMES.find(([code]) => code === outcome)?.[1] ?? outcome;
}

/** Payments of the sales unit searched on the server, any age, newest first; the filters live in the URL. */
export function Search({ graph, params }: { graph: Graph; params: URLSearchParams }) {
  const form = formFromParams(params);
  // The search as the graph reads it: the same query however its URL is spelled (order, empty fields, spaces).
  const key = paramsFromForm(form).toString();
  const [rows, setRows] = useState<SearchRow[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();

  const read = async (after: string | null, first = PAGE) =>
    (await graph.query<SearchData>(SEARCH, { first, after, filter: graphFilter(form) })).payments;

  useEffect(() => {
    let cancelled = false;
    // The rows shown stay until the new answer replaces them: the list never empties while a search settles.
    setBusy(true);
    read(null)
      .then((page) => {
        if (cancelled) return;
        setRows(page.edges.map((e) => e.node));
        setNext(page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null);
        setError(undefined);
      })
      .catch((failure: unknown) => {
        if (cancelled) return;
        // No answer to this search: the rows of the one before are not shown as if they were.
        setRows([]);
        setNext(null);
        setError(failure instanceof Error ? failure.message : String(failure));
      })
      .finally(() => !cancelled && setBusy(false));
    return () => {
      cancelled = true;
    };
    // The search is its URL: a new one whenever the URL's query changes, none when it only reads differently.
  }, [graph, key]);

  const more = async () => {
    if (!next) return;
    setBusy(true);
    try {
      const page = await read(next);
      setRows((shown) => [...shown, ...page.edges.map((e) => e.node)]);
      setNext(page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };

  const exportCsv = async () => {
    setBusy(true);
    try {
      const all: SearchRow[] = [];
      let after: string | null = null;
      do {
        const page: SearchData['payments'] = await read(after, 100);
        all.push(...page.edges.map((e) => e.node));
        after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
      } while (after && all.length < EXPORT_MAX);
      const link = document.createElement('a');
      link.href = URL.createObjectURL(new Blob([paymentsCsv(all)], { type: 'text/csv' }));
      link.download = `payments-${graph.msn}.csv`;
      link.click();
      URL.revokeObjectURL(link.href);
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };

  const submit = (event: Event) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const typed = Object.fromEntries([...data.entries()].map(([k, v]) => [k, String(v)])) as unknown as SearchForm;
    location.hash = searchHref(paramsFromForm(typed));
  };

  return (
    <section class="card search" aria-labelledby="search-title">
      <h2 id="search-title">Search payments</h2>
      <form class="filters" role="search" onSubmit={submit} key={key}>
        <label>
          Reference starts with
          <input name="reference" type="search" defaultValue={form.reference} data-testid="search-reference" spellcheck={false} />
        </label>
        <label>
          State
          <AnyOf options={STATES} name="state" defaultValue={form.state} data-testid="search-state" />
        </label>
        <label>
          Outcome
          <AnyOf options={OUTCOMES} name="outcome" defaultValue={form.outcome} data-testid="search-outcome" />
        </label>
        <label>
          Amount from (kr)
          <input name="amountFrom" inputMode="decimal" defaultValue={form.amountFrom} size={8} />
        </label>
        <label>
          to (kr)
          <input name="amountTo" inputMode="decimal" defaultValue={form.amountTo} size={8} />
        </label>
        <label>
          Created from
          <input name="from" type="date" defaultValue={form.from} />
        </label>
        <label>
          to
          <input name="to" type="date" defaultValue={form.to} />
        </label>
        <button type="submit" data-testid="search-submit">
          Search
        </button>
        <button type="button" onClick={() => void exportCsv()} disabled={busy} data-testid="search-export">
          Export CSV
        </button>
      </form>
      <Alert error={error} />
      <table class="stacked" aria-busy={busy}>
        <ColumnHeads columns={['Created', 'Reference', 'Outcome', 'Amount', 'Captured', 'Refunded', 'Cancelled']} />
        <tbody>
          {rows.map((p) => (
            <tr key={p.reference} data-testid="search-row" data-reference={p.reference}>
              <td data-label="Created">
                <time dateTime={p.createdAt}>{formatDateTime(p.createdAt)}</time>
              </td>
              <td data-label="Reference">
                <a href={paymentHref(p.reference)}>{p.reference}</a>
              </td>
              <td data-label="Outcome">{outcomeLabel(p.outcome)}</td>
              <td data-label="Amount" class="num">
                {formatMoney(p.amount)}
              </td>
              <td data-label="Captured" class="num">
                {formatMoney(p.aggregate.capturedAmount)}
              </td>
              <td data-label="Refunded" class="num">
                {formatMoney(p.aggregate.refundedAmount)}
              </td>
              <td data-label="Cancelled" class="num">
                {formatMoney(p.aggregate.cancelledAmount)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p role="status" data-testid="search-status">
        {busy
          ? 'Searching…'
          : rows.length === 0 && !error
            ? 'No payments match.'
            : `${rows.length} payment(s) shown${next ? ', more older ones' : ''}.`}
      </p>
      {next && (
        <button type="button" onClick={() => void more()} disabled={busy} data-testid="search-more">
          Show older payments
        </button>
      )}
    </section>
  );
}
