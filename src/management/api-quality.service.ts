import type { RequestContext, Services } from '../platform/context.js';
import { requireVisibleUnit } from './management-access.js';
import { apiQualityCounter, REPORTED_STATUSES } from './api-quality.counter.js';
import { apiQualitySince } from './api-quality.retention.js';

export interface ApiQualityItem {
  endpoint: string;
  'total Requests': number;
  successRate: number;
  status200: number;
  status400: number;
  status401: number;
  status403: number;
  status404: number;
  status429: number;
  status500: number;
}

/**
 * API quality of a sales unit the caller sees (spec 3): per endpoint (method and path template) the requests made
 * for it on every interface, the stored totals plus what this instance counted since its last flush.
 * `successRate`: the percentage of 2xx answers, rounded down.
 */
export async function apiQuality(ctx: RequestContext, services: Services, msn: string): Promise<ApiQualityItem[]> {
  await requireVisibleUnit(ctx, msn);
  return apiQualityOf(ctx, services, [msn]).then((byMsn) => byMsn.get(msn) ?? []);
}

/** A page of a unit's endpoints: `limit` of them after the endpoint `after`, in endpoint order. */
export interface EndpointPage {
  limit: number;
  after: string | undefined;
}

/**
 * Endpoints in one order on both databases and in memory: by code point (`collate "C"` in SQL). Endpoints are a
 * method and a path template, ASCII, so a JS string comparison is the same order.
 */
export const byEndpoint = (a: { endpoint: string }, b: { endpoint: string }) =>
  a.endpoint < b.endpoint ? -1 : a.endpoint > b.endpoint ? 1 : 0;

/**
 * For several sales units in one statement (the graph's loader), each unit's endpoints in endpoint order; with a
 * page, only the `limit` endpoints after `after` of each unit (a keyset: the statement starts after the endpoint).
 * The first `limit` endpoints of stored and pending counts together are among the first `limit` stored ones and
 * the pending ones, so the statement reads at most `limit` endpoints per unit.
 */
export async function apiQualityOf(
  ctx: Pick<RequestContext, 'em'>,
  services: Services,
  msns: readonly string[],
  page?: EndpointPage,
): Promise<Map<string, ApiQualityItem[]>> {
  if (msns.length === 0) return new Map();
  const after = page?.after;
  const counter = apiQualityCounter(services);
  // Stored and pending counts read with no flush between them, so a flush's batch is counted once.
  const counts = await counter.whileSettled(async () => {
    const rows = await ctx.em.execute<{ msn: string; endpoint: string; status: number; count: string | number }[]>(
      `select msn, endpoint, status, count from (
         select msn, endpoint, status, sum(count) as count,
           dense_rank() over (partition by msn order by endpoint collate "C") as position
         from api_quality_count where msn in (${msns.map(() => '?').join(', ')}) and day >= ?::date
           ${after !== undefined ? 'and endpoint collate "C" > ?' : ''}
         group by msn, endpoint, status
       ) ranked ${page ? 'where position <= ?' : ''}`,
      [
        ...msns,
        apiQualitySince(services.config, services.clock.now()),
        ...(after !== undefined ? [after] : []),
        ...(page ? [page.limit] : []),
      ],
    );
    const stored = rows.map((r) => ({ msn: r.msn, endpoint: r.endpoint, status: Number(r.status), count: Number(r.count) }));
    for (const msn of msns) {
      for (const p of counter.pendingFor(msn)) if (after === undefined || p.endpoint > after) stored.push({ msn, ...p });
    }
    return stored;
  });
  const result = new Map<string, Map<string, ApiQualityItem>>();
  for (const c of counts) {
    const perUnit = result.get(c.msn) ?? new Map<string, ApiQualityItem>();
    result.set(c.msn, perUnit);
    const item = perUnit.get(c.endpoint) ?? emptyItem(c.endpoint);
    perUnit.set(c.endpoint, item);
    item['total Requests'] += c.count;
    if ((REPORTED_STATUSES as readonly number[]).includes(c.status)) {
      const field = `status${c.status}` as keyof ApiQualityItem;
      (item[field] as number) += c.count;
    }
    (item as unknown as { ok: number }).ok =
      ((item as unknown as { ok?: number }).ok ?? 0) + (c.status >= 200 && c.status < 300 ? c.count : 0);
  }
  const out = new Map<string, ApiQualityItem[]>();
  for (const [msn, perUnit] of result) {
    const items = [...perUnit.values()].sort(byEndpoint).map((item) => {
      const { ok, ...rest } = item as ApiQualityItem & { ok: number };
      return { ...rest, successRate: rest['total Requests'] === 0 ? 0 : Math.floor((ok * 100) / rest['total Requests']) };
    });
    out.set(msn, page ? items.slice(0, page.limit) : items);
  }
  return out;
}

function emptyItem(endpoint: string): ApiQualityItem {
  return {
    endpoint,
    'total Requests': 0,
    successRate: 0,
    status200: 0,
    status400: 0,
    status401: 0,
    status403: 0,
    status404: 0,
    status429: 0,
    status500: 0,
  };
}
