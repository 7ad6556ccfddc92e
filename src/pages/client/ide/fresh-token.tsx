/** @jsxImportSource react */
import { useState } from 'react';
import { ToolbarButton, useGraphiQL } from '@graphiql/react';

/** Merchant A's demo credentials, rendered into the page in the test environment only. */
export interface Prefill {
  clientId: string;
  clientSecret: string;
  subscriptionKey: string;
  msn: string;
}

/** The request headers the graph wants, with a token just issued for the prefilled credentials. */
export async function headersFor(prefill: Prefill): Promise<Record<string, string>> {
  const response = await fetch('/accesstoken/get', {
    method: 'POST',
    headers: { client_id: prefill.clientId, client_secret: prefill.clientSecret, 'Ocp-Apim-Subscription-Key': prefill.subscriptionKey },
  });
  const body = (await response.json()) as { access_token?: string };
  return {
    Authorization: `Bearer ${body.access_token ?? ''}`,
    'Ocp-Apim-Subscription-Key': prefill.subscriptionKey,
    'Merchant-Serial-Number': prefill.msn,
  };
}

/** A toolbar button that fetches a fresh token and writes it into the headers editor. */
export function FreshTokenButton({ prefill }: { prefill: Prefill }) {
  const headerEditor = useGraphiQL((state) => state.headerEditor);
  const [busy, setBusy] = useState(false);
  const refresh = async () => {
    setBusy(true);
    try {
      const current = safeParse(headerEditor?.getValue() ?? '{}');
      headerEditor?.setValue(JSON.stringify({ ...current, ...(await headersFor(prefill)) }, null, 2));
    } finally {
      setBusy(false);
    }
  };
  return (
    <ToolbarButton label="Fetch a fresh access token" onClick={() => void refresh()} disabled={busy} data-testid="fresh-token">
      <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" className="graphiql-toolbar-icon">
        <path fill="currentColor" d="M12 4a8 8 0 0 1 7.4 5H17v2h6V5h-2v2.3A10 10 0 1 0 22 12h-2a8 8 0 1 1-8-8z" />
      </svg>
    </ToolbarButton>
  );
}

function safeParse(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
