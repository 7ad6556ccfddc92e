interface LandingState {
  state: string;
  awaitsUser: boolean;
}

const RETRY_MS = 2_000;

/**
 * Keeps the shown state live while the payment waits for its user: the server answers when the state differs
 * from the one sent (an event of the payment committed), or after a while unchanged, and the page asks again.
 * The token goes in the request body: it is already in the page's own address, and no new URL carries it.
 */
export function followLandingState(initial: string): void {
  const token = new URLSearchParams(location.search).get('token');
  if (!token) return;
  let shown = initial;
  const next = async (): Promise<void> => {
    try {
      const response = await fetch('/wallet/landing/state', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, state: shown }),
        credentials: 'same-origin',
      });
      if (response.status === 404) return;
      if (!response.ok) throw new Error(`state ${response.status}`);
      const current = (await response.json()) as LandingState;
      if (current.state !== shown) {
        shown = current.state;
        show(current);
      }
      if (current.awaitsUser) void next();
    } catch {
      setTimeout(() => void next(), RETRY_MS);
    }
  };
  void next();
}

function show(current: LandingState): void {
  const state = document.querySelector('[data-testid="state"]');
  if (state) state.textContent = `Status: ${current.state}`;
  if (current.awaitsUser) return;
  // Decided elsewhere (approved, rejected, expired): the choices are gone, the way back to the merchant shows.
  document.querySelector('[data-awaits-user]')?.remove();
  document.querySelector<HTMLElement>('[data-back]')?.removeAttribute('hidden');
}
