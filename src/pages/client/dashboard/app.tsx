import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Credentials } from '../shared/credentials.js';
import { TokenSource } from '../shared/credentials.js';
import { Graph } from '../shared/graph.js';
import { FeedStore } from './feed-store.js';
import { Overview } from './overview.js';
import { PaymentView } from './payment-view.js';
import { SALES_UNITS } from './queries.js';
import { SignIn, type SignInValues } from './sign-in.js';
import { useHashRoute } from './use-hash-route.js';
import { EventLog } from './event-log.js';
import { Search } from './search.js';
import { Webhooks } from './webhooks.js';
import { Attention } from './attention.js';

export interface DashboardData {
  env: string;
  prefill: (Credentials & { msn: string }) | null;
}

interface Session {
  tokens: TokenSource;
  units: { msn: string; name: string }[];
  msn: string;
}

export function App({ data }: { data: DashboardData }) {
  const [session, setSession] = useState<Session | undefined>();
  const signIn = async (values: SignInValues) => {
    const tokens = new TokenSource(values);
    await tokens.token();
    // `salesUnits` lists every unit the credentials may act for, named or not: a partner need type none.
    const probe = new Graph(tokens, values.msn);
    try {
      const { salesUnits } = await probe.query<{ salesUnits: { msn: string; name: string }[] }>(SALES_UNITS);
      const msn = values.msn || salesUnits[0]?.msn;
      if (!msn) throw new Error('These credentials act for no sales unit.');
      setSession({ tokens, units: salesUnits, msn });
    } finally {
      probe.dispose();
    }
  };
  if (!session) return <SignIn prefill={data.prefill} onSignIn={signIn} />;
  return <Dashboard session={session} onPickUnit={(msn) => setSession({ ...session, msn })} onSignOut={() => setSession(undefined)} />;
}

function Dashboard({ session, onPickUnit, onSignOut }: { session: Session; onPickUnit: (msn: string) => void; onSignOut: () => void }) {
  const graph = useMemo(() => new Graph(session.tokens, session.msn), [session.tokens, session.msn]);
  const feed = useMemo(() => new FeedStore(graph), [graph]);
  const [connected, setConnected] = useState(false);
  useEffect(() => {
    const stopStatus = graph.onStatus(setConnected);
    feed.start();
    return () => {
      stopStatus();
      feed.stop();
      graph.dispose();
    };
  }, [graph, feed]);
  const route = useHashRoute();
  return (
    <div class="layout">
      <header class="top">
        <h1>Paygraph operations</h1>
        <nav aria-label="Pages">
          <a href="#/" aria-current={route.page === 'overview' ? 'page' : undefined}>
            Live
          </a>
          <a href="#/search" aria-current={route.page === 'search' ? 'page' : undefined}>
            Search
          </a>
          <a href="#/events" aria-current={route.page === 'events' ? 'page' : undefined}>
            All events
          </a>
          <a href="#/webhooks" aria-current={route.page === 'webhooks' ? 'page' : undefined}>
            Webhooks
          </a>
          <a href="#/attention" aria-current={route.page === 'attention' ? 'page' : undefined}>
            Needs attention
          </a>
        </nav>
        <label class="unit">
          Sales unit{' '}
          <select value={session.msn} onChange={(e) => onPickUnit((e.currentTarget as HTMLSelectElement).value)} data-testid="sales-unit">
            {session.units.map((u) => (
              <option key={u.msn} value={u.msn}>
                {u.name} ({u.msn})
              </option>
            ))}
          </select>
        </label>
        <span class={`live ${connected ? 'on' : 'off'}`} data-testid="connection" role="status">
          {connected ? 'Live' : 'Reconnecting…'}
        </span>
        <button type="button" class="link" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main>
        {route.page === 'payment' ? (
          <PaymentView key={route.reference} graph={graph} reference={route.reference} />
        ) : route.page === 'search' ? (
          <Search graph={graph} params={route.params} />
        ) : route.page === 'events' ? (
          <EventLog graph={graph} />
        ) : route.page === 'webhooks' ? (
          <Webhooks graph={graph} />
        ) : route.page === 'attention' ? (
          <Attention graph={graph} />
        ) : (
          <Overview graph={graph} feed={feed} />
        )}
      </main>
    </div>
  );
}
