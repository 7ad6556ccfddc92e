import { parseArgs } from 'node:util';
import { CredentialsRefused, GraphFailure, PaygraphClient, unreachable, type Principal } from '../network/paygraph-client.js';
import { EventFeed } from './event-feed.js';
import { DEFAULT_RETRY_DELAYS, Forwarder, ListenStopped, pause, type ListenOutput, type RetryDelays } from './forwarder.js';
import { defaultCursorFile, listenState, readCursor, signingSecret, writeCursor } from './listen-state.js';
import { follow, ListenRefused } from './listener.js';

export const DEFAULT_URL = 'http://localhost:8080';

const processOutput: ListenOutput = {
  delivery: (line) => process.stdout.write(`${line}\n`),
  status: (line) => process.stderr.write(`paygraph listen: ${line}\n`),
};

/** What runs the command: its output, and what stops it (Ctrl-C and SIGTERM unless a test gives its own). */
export interface ListenRun {
  output?: ListenOutput;
  stop?: AbortSignal;
  env?: NodeJS.ProcessEnv;
  /** The backoff between attempts (default 0.5 s doubling to 10 s). */
  delays?: RetryDelays;
}

/**
 * `npm run paygraph -- listen --forward-to <url>`: a network client of any Paygraph (it opens no database) that
 * follows one sales unit's event stream and POSTs each event with a webhook type to a local URL, in stream order, one
 * at a time, signed exactly as a webhook delivery with a secret of its own. The cursor file holds the last event the
 * receiver acknowledged; a restart of either side resumes from it. Exit codes: 0 stopped, 1 refused, 2 usage.
 */
export async function runListen(args: readonly string[], run: ListenRun = {}): Promise<number> {
  const output = run.output ?? processOutput;
  const env = run.env ?? process.env;
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: false,
      options: {
        'forward-to': { type: 'string' },
        url: { type: 'string' },
        'client-id': { type: 'string' },
        'client-secret': { type: 'string' },
        'subscription-key': { type: 'string' },
        msn: { type: 'string' },
        events: { type: 'string' },
        'cursor-file': { type: 'string' },
        after: { type: 'string' },
        'retry-max': { type: 'string' },
        'print-secret': { type: 'boolean' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    return usage(output, error instanceof Error ? error.message : String(error));
  }
  if (values.help) {
    output.delivery(help());
    return 0;
  }
  const option = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const msnOption = option('msn');
  if (msnOption !== undefined && !/^\d{4,10}$/.test(msnOption))
    return usage(output, `--msn must be a Merchant-Serial-Number, got "${msnOption}"`);
  const cursorOption = option('cursor-file');
  if (values['print-secret']) {
    // The secret lives beside the cursor files, whatever the unit: no service is asked.
    output.delivery(await signingSecret(listenState(cursorOption ?? defaultCursorFile('any'))));
    return 0;
  }
  const forwardTo = option('forward-to');
  if (forwardTo === undefined) return usage(output, '--forward-to <url> is required (the receiver, e.g. http://localhost:3000/webhooks)');
  let target: URL;
  try {
    target = new URL(forwardTo);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error('not http');
  } catch {
    return usage(output, `--forward-to must be an http or https URL, got "${forwardTo}"`);
  }
  const serviceUrl = (option('url') ?? env.PAYGRAPH_URL ?? DEFAULT_URL).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+$/.test(serviceUrl))
    return usage(output, `--url must be the service's base URL (http or https), got "${serviceUrl}"`);
  const after = option('after');
  if (after !== undefined && !/^\d{1,15}$/.test(after))
    return usage(output, `--after must be an event id (0: the stream's start), got "${after}"`);
  const retryMax = option('retry-max');
  if (retryMax !== undefined && !/^\d{1,4}(\.\d+)?$/.test(retryMax))
    return usage(output, `--retry-max must be a number of seconds, got "${retryMax}"`);
  const credentials = {
    clientId: option('client-id') ?? env.PAYGRAPH_CLIENT_ID,
    clientSecret: option('client-secret') ?? env.PAYGRAPH_CLIENT_SECRET,
    subscriptionKey: option('subscription-key') ?? env.PAYGRAPH_SUBSCRIPTION_KEY,
  };
  const lacking = Object.entries({
    'client-id': credentials.clientId,
    'client-secret': credentials.clientSecret,
    'subscription-key': credentials.subscriptionKey,
  })
    .filter(([, value]) => !value)
    .map(([key]) => `--${key} (or PAYGRAPH_${key.replace('-', '_').toUpperCase()})`);
  if (lacking.length > 0) return usage(output, `the client's credentials are required: ${lacking.join(', ')}`);
  const names = option('events')
    ?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);

  const controller = new AbortController();
  const stop = run.stop ? AbortSignal.any([run.stop, controller.signal]) : controller.signal;
  const onSignal = () => controller.abort();
  if (!run.stop) {
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
  }
  const client = new PaygraphClient(serviceUrl);
  try {
    const principal: Principal = {
      clientId: credentials.clientId!,
      clientSecret: credentials.clientSecret!,
      subscriptionKey: credentials.subscriptionKey!,
      actingFor: {},
    };
    // One sales unit per listener: the one named, or the credentials' own when they have exactly one.
    const msn = msnOption ?? (await untilReached(() => ownUnit(client, principal), serviceUrl, output, stop));
    principal.actingFor = { 'Merchant-Serial-Number': msn };
    const feed = new EventFeed(client, principal, names?.length ? names : undefined);
    const state = listenState(cursorOption ?? defaultCursorFile(msn));
    const secret = await signingSecret(state);
    const start = after ?? (await readCursor(state)) ?? (await untilReached(() => feed.newestEventId(), serviceUrl, output, stop));
    await writeCursor(state, start);
    output.status(
      `forwarding sales unit ${msn}'s events${names?.length ? ` (${names.join(', ')})` : ''} from ${serviceUrl} to ${target.href}, ` +
        `after event ${start} (cursor ${state.cursorFile}); signed with the secret in ${state.secretFile} (--print-secret shows it)`,
    );
    const delays = run.delays ?? {
      ...DEFAULT_RETRY_DELAYS,
      ...(retryMax === undefined ? {} : { maxMs: Math.max(DEFAULT_RETRY_DELAYS.firstMs, Math.round(Number(retryMax) * 1000)) }),
    };
    const forwarder = new Forwarder(target, secret, output, stop, delays);
    await forwarder.waitForReceiver();
    const last = await follow({ feed, forwarder, state, output, stop, serviceUrl, delays }, start);
    output.status(`stopped; the receiver acknowledged every event up to ${last}`);
    return 0;
  } catch (error) {
    if (error instanceof ListenStopped) {
      output.status('stopped');
      return 0;
    }
    if (error instanceof ListenRefused || error instanceof CredentialsRefused || error instanceof GraphFailure) {
      return refuse(output, error.message);
    }
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

async function ownUnit(client: PaygraphClient, principal: Principal): Promise<string> {
  const units = await EventFeed.ownUnits(client, principal);
  if (units.length === 1) return units[0]!;
  throw new ListenRefused(
    units.length === 0
      ? 'these credentials act for no sales unit of their own: name one with --msn'
      : `these credentials act for ${units.length} sales units (${units.join(', ')}): name one with --msn`,
  );
}

/** A step at start, retried while the service cannot be reached (said once), as the listener retries later. */
async function untilReached<T>(step: () => Promise<T>, serviceUrl: string, output: ListenOutput, stop: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (!unreachable(error) && !(error instanceof GraphFailure && error.status >= 500)) throw error;
      if (attempt === 1) output.status(`cannot reach ${serviceUrl} (${error.message}): waiting for it`);
      const { firstMs, maxMs } = DEFAULT_RETRY_DELAYS;
      await pause(Math.min(maxMs, firstMs * 2 ** Math.min(attempt - 1, 10)), stop);
    }
  }
}

function help(): string {
  return [
    'Usage: npm run paygraph -- listen --forward-to <url> [--url <service>] [--msn <msn>] [--events <names>]',
    '         [--client-id <id> --client-secret <secret> --subscription-key <key>] [--cursor-file <file>] [--after <id>]',
    '       npm run paygraph -- listen --print-secret [--cursor-file <file>]',
    '',
    "Follows one sales unit's event stream over the network (it opens no database) and POSTs each event that a webhook",
    'can carry to <url>, one at a time in stream order, with the body and signature headers of a webhook delivery, signed',
    'with a secret of its own. A non-2xx answer is retried with backoff and holds back the events after it; the cursor file',
    'holds the last event the receiver acknowledged, and a restart of listen or of the service resumes after it.',
    '',
    '  --forward-to <url>        the receiver (http or https), e.g. http://localhost:3000/webhooks',
    `  --url <url>               the service (default PAYGRAPH_URL, else ${DEFAULT_URL})`,
    '  --client-id, --client-secret, --subscription-key',
    '                            the client credentials (default PAYGRAPH_CLIENT_ID, PAYGRAPH_CLIENT_SECRET,',
    '                            PAYGRAPH_SUBSCRIPTION_KEY)',
    "  --msn <msn>               the sales unit (a partner's); default: the credentials' own unit",
    '  --events <names>          only these event names, comma-separated (e.g. epayments.payment.captured.v1)',
    '  --cursor-file <file>      the cursor (default .paygraph-listen/<msn>.cursor); the secret is listen.secret beside it',
    "  --after <id>              start after this event id instead of the cursor (0: the unit's whole stream); a first",
    "                            run without it starts after the unit's newest event",
    '  --retry-max <seconds>     the longest wait between attempts, to the receiver or the service (default 10)',
    '  --print-secret            print the signing secret (made on first use) and exit',
    '',
  ].join('\n');
}

function usage(output: ListenOutput, message: string): number {
  output.status(message);
  return 2;
}

function refuse(output: ListenOutput, message: string): number {
  output.status(message);
  return 1;
}
