/** A payments search as the URL holds it and as the graph's PaymentFilter takes it. */
export interface SearchForm {
  reference: string;
  state: string;
  outcome: string;
  /** Amounts as typed, in kroner (major units). */
  amountFrom: string;
  amountTo: string;
  /** Dates as typed, `YYYY-MM-DD`, whole days in UTC. */
  from: string;
  to: string;
}

export const SEARCH_FIELDS: (keyof SearchForm)[] = ['reference', 'state', 'outcome', 'amountFrom', 'amountTo', 'from', 'to'];

export function formFromParams(params: URLSearchParams): SearchForm {
  const get = (name: keyof SearchForm) => params.get(name) ?? '';
  return {
    reference: get('reference'),
    state: get('state'),
    outcome: get('outcome'),
    amountFrom: get('amountFrom'),
    amountTo: get('amountTo'),
    from: get('from'),
    to: get('to'),
  };
}

export function paramsFromForm(form: SearchForm): URLSearchParams {
  const params = new URLSearchParams();
  for (const field of SEARCH_FIELDS) if (form[field].trim()) params.set(field, form[field].trim());
  return params;
}

const minorUnits = (major: string) => Math.round(Number(major.replace(',', '.')) * 100);
const DAY_MS = 24 * 60 * 60 * 1000;

/** The graph's filter: every criterion on the server; `to` includes its whole day. */
export function graphFilter(form: SearchForm): Record<string, unknown> {
  const filter: Record<string, unknown> = {};
  if (form.reference.trim()) filter.referencePrefix = form.reference.trim();
  if (form.state) filter.state = [form.state];
  if (form.outcome) filter.outcome = [form.outcome];
  if (form.amountFrom.trim()) filter.amountFrom = minorUnits(form.amountFrom);
  if (form.amountTo.trim()) filter.amountTo = minorUnits(form.amountTo);
  if (form.from) filter.createdFrom = new Date(`${form.from}T00:00:00Z`).toISOString();
  if (form.to) filter.createdBefore = new Date(new Date(`${form.to}T00:00:00Z`).getTime() + DAY_MS).toISOString();
  return filter;
}
