import { useState } from 'preact/hooks';
import type { Credentials } from '../shared/credentials.js';
import { Alert } from './parts.js';

export type SignInValues = Credentials & { msn: string };

/** The API client's credentials; held in memory by the page only (never stored, never in a URL). */
export function SignIn({ prefill, onSignIn }: { prefill: SignInValues | null; onSignIn: (values: SignInValues) => Promise<void> }) {
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget as HTMLFormElement);
    const value = (name: string) => String(form.get(name) ?? '').trim();
    setBusy(true);
    setError(undefined);
    try {
      await onSignIn({
        clientId: value('clientId'),
        clientSecret: value('clientSecret'),
        subscriptionKey: value('subscriptionKey'),
        msn: value('msn'),
      });
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>Paygraph operations</h1>
      <form onSubmit={submit} autocomplete="off">
        <Field name="clientId" label="Client id" value={prefill?.clientId} />
        <Field name="clientSecret" label="Client secret" secret value={prefill?.clientSecret} />
        <Field name="subscriptionKey" label="Subscription key" secret value={prefill?.subscriptionKey} />
        <Field
          name="msn"
          label="Merchant serial number (optional: a partner picks from its units after signing in)"
          value={prefill?.msn}
          optional
        />
        <Alert error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

function Field({
  name,
  label,
  secret = false,
  optional = false,
  value,
}: {
  name: string;
  label: string;
  secret?: boolean;
  optional?: boolean;
  value: string | undefined;
}) {
  return (
    <p class="field">
      <label for={name}>{label}</label>
      {secret ? (
        <input id={name} name={name} type="password" defaultValue={value ?? ''} required />
      ) : (
        <input id={name} name={name} type="text" defaultValue={value ?? ''} required={!optional} spellcheck={false} />
      )}
    </p>
  );
}
