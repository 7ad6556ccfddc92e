/**
 * The ledger read at depth: one ledger with 1,000,000 transactions (inserted by this setup with one set-based
 * statement), the first page and a page at depth 900,000 through REST (1000 rows a page) and the graph (100 rows a
 * page), against the bare `pg` keyset query the REST page runs, in the same run. Requests one at a time: the
 * figure is the latency of one page (median of the runs), not throughput under load. The bare query has no HTTP at
 * all, so the run also times the baseline server (node:http and pg, the same statement and body): what moving and
 * parsing a 1000-row page over HTTP costs before Paygraph does anything.
 */
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { encodeCursor } from '../src/platform/paging/cursor.js';

const ROWS = Number(process.env.BENCH_LEDGER_ROWS ?? 1_000_000);
const DEPTH = Math.floor(ROWS * 0.9);
const RUNS = Number(process.env.BENCH_LEDGER_RUNS ?? 25);
const WARM_UP = 5;

export interface LedgerReadResult {
  rows: number;
  insertSeconds: number;
  figures: { what: string; firstMs: number; deepMs: number }[];
}

async function median(run: () => Promise<void>): Promise<number> {
  for (let i = 0; i < WARM_UP; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export async function runLedgerRead(
  baseUrl: string,
  baselineUrl: string,
  databaseUrl: string,
  headers: Record<string, string>,
): Promise<LedgerReadResult> {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const auth = { Authorization: headers.Authorization! };
    const listed = (await (await fetch(`${baseUrl}/settlement/v1/ledgers`, { headers: auth })).json()) as { items: { ledgerId: string }[] };
    const ledgerId = listed.items[0]!.ledgerId;
    const started = performance.now();
    await db.query(
      `insert into ledger_transaction
         (ledger_id, transaction_type, occurred_at, ledger_date, order_id, payment_id, recipient_handle, currency, gross_amount, fee, ledger_amount, payout_id)
       select $1, 'capture', now() - make_interval(secs => $2 - g), current_date - (($2 - g) / 3000)::int, 'bench-' || g, null, 'api:123456', 'NOK',
              1000 + g % 5000, 128, 872 + g % 5000, null
       from generate_series(1, $2) g`,
      [ledgerId, ROWS],
    );
    await db.query('analyze ledger_transaction');
    const insertSeconds = (performance.now() - started) / 1000;
    // Where the deep page starts (set-up only: the reads below never use OFFSET).
    const deepAfter = Number(
      (
        await db.query<{ id: string }>('select id from ledger_transaction where ledger_id = $1 order by id offset $2 limit 1', [
          ledgerId,
          DEPTH - 1,
        ])
      ).rows[0]!.id,
    );
    const secret = loadConfig({ PAYGRAPH_ENV: 'test' }).tokenSecret;
    const restCursor = encodeCursor(
      { list: 'GET /report/v1/ledgertransactions', secret },
      { key: [deepAfter], filter: {}, parent: String(ledgerId) },
    );
    const graphCursor = encodeCursor({ list: 'Ledger.transactions', secret }, { key: [deepAfter], filter: {}, parent: String(ledgerId) });

    const merchantId = (await db.query<{ merchant_id: string }>('select merchant_id from ledger where id = $1', [ledgerId])).rows[0]!
      .merchant_id;
    const rest =
      (query: string, server = baseUrl) =>
      async () => {
        const res = await fetch(`${server}/report/v1/ledgertransactions?${query}`, { headers: auth });
        const body = (await res.json()) as { items: unknown[] };
        if (res.status !== 200 || body.items.length !== 1000) throw new Error(`REST page: ${res.status}`);
      };
    const GRAPH = `query($id: String!, $after: String) { ledger(ledgerId: $id) { transactions(first: 100, after: $after) {
      edges { cursor node { transactionId timestamp ledgerDate transactionType orderId currency ledgerAmount grossAmount fee recipientHandle } } pageInfo { hasNextPage } } } }`;
    const graph = (after: string | null) => async () => {
      const res = await fetch(`${baseUrl}/graphql`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ query: GRAPH, variables: { id: ledgerId, after } }),
      });
      const body = (await res.json()) as { data?: { ledger: { transactions: { edges: unknown[] } } } };
      if (body.data?.ledger.transactions.edges.length !== 100) throw new Error(`graph page: ${JSON.stringify(body).slice(0, 200)}`);
    };
    const bare = (after: number) => async () => {
      const result = await db.query(
        `select t.id, t.ledger_id, t.transaction_type, t.occurred_at, t.ledger_date::text as ledger_date, t.order_id, t.payment_id,
           t.recipient_handle, t.currency, t.gross_amount, t.fee, t.ledger_amount, t.payout_id
         from ledger_transaction t where t.ledger_id = $1 and t.id > $2 order by t.id limit 1001`,
        [ledgerId, after],
      );
      if (result.rows.length !== 1001) throw new Error('bare page');
    };
    const figures = [
      { what: 'bare pg keyset query (1000 rows)', firstMs: await median(bare(0)), deepMs: await median(bare(deepAfter)) },
      {
        what: 'baseline node:http + pg, same statement and body (1000 rows)',
        firstMs: await median(rest(`ledgerId=${ledgerId}&merchantId=${merchantId}`, baselineUrl)),
        deepMs: await median(rest(`ledgerId=${ledgerId}&merchantId=${merchantId}&after=${deepAfter}`, baselineUrl)),
      },
      {
        what: 'REST `/report/v1/ledgertransactions` (1000 rows)',
        firstMs: await median(rest(`ledgerId=${ledgerId}`)),
        deepMs: await median(rest(`cursor=${encodeURIComponent(restCursor)}`)),
      },
      {
        what: 'GraphQL `ledger.transactions(first: 100)`',
        firstMs: await median(graph(null)),
        deepMs: await median(graph(graphCursor)),
      },
    ];
    return { rows: ROWS, insertSeconds, figures };
  } finally {
    await db.end();
  }
}

/**
 * Deep page within 1.5x of the first; REST at least half the speed of the bare query it runs. REST against the
 * node:http baseline is shown beside it, with no target of its own.
 */
export function renderLedgerRead(result: LedgerReadResult): string {
  const [bare, http] = result.figures as [LedgerReadResult['figures'][number], LedgerReadResult['figures'][number]];
  const lines = [
    '### Ledger read at depth',
    '',
    `One ledger with ${result.rows.toLocaleString('en')} transactions (one set-based insert, ${result.insertSeconds.toFixed(0)} s); ` +
      `median of ${RUNS} sequential requests per figure. Targets: deep page ≤ 1.5 × first page; REST ≥ 0.5 × the bare query (bare time / REST time).`,
    '',
    '| read | first page ms | page at depth 900,000 ms | deep / first | vs bare query | vs node:http baseline | target |',
    '|---|---:|---:|---:|---:|---:|---|',
  ];
  const ratio = (base: { firstMs: number; deepMs: number }, f: { firstMs: number; deepMs: number }) =>
    `${(base.firstMs / f.firstMs).toFixed(2)} / ${(base.deepMs / f.deepMs).toFixed(2)}`;
  for (const f of result.figures) {
    const depthRatio = f.deepMs / f.firstMs;
    const isRest = f.what.startsWith('REST');
    const met = depthRatio <= 1.5 && (!isRest || (bare.firstMs / f.firstMs >= 0.5 && bare.deepMs / f.deepMs >= 0.5));
    lines.push(
      `| ${f.what} | ${f.firstMs.toFixed(1)} | ${f.deepMs.toFixed(1)} | ${depthRatio.toFixed(2)} | ` +
        `${f === bare ? '' : ratio(bare, f)} | ${isRest ? ratio(http, f) : ''} | ${met ? 'met' : '**missed**'} |`,
    );
  }
  return lines.join('\n');
}
