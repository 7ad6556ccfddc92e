import { paymentOutcome } from '../../kit/payment-outcome.js';

/** The answer of a page's state route (src/platform/events/wait-for-state.ts `LiveState`). */
interface LiveState {
  state: string;
  awaitsUser: boolean;
  settled: boolean;
  /** The amount shown, where it may change while the state does not (a checkout session the merchant updated). */
  shownAmount?: string;
  /** What the page sends back as the one it shows (state, and amount where it may change). */
  key?: string;
}

/** What the server hands the script (`liveStatePage`): where to ask, and the state the page shows. */
export interface LivePage {
  endpoint: string;
  state: string;
  /** The amount the server gave with that state, where it may change (the page may show another it follows itself). */
  shownAmount?: string;
}

const RETRY_MS = 2_000;

/**
 * Keeps the shown state live until it is final: the server answers when the state differs from the one sent (an
 * event of the payment or session committed), or after a while unchanged, and the page asks again. The token goes
 * in the request body: it is already in the page's own address, and no new URL carries it.
 */
export function followLiveState(live: LivePage): void {
  const token = new URLSearchParams(location.search).get('token');
  if (!token) return;
  let shown = live.state;
  let serverAmount = live.shownAmount;
  const next = async (): Promise<void> => {
    try {
      const response = await fetch(live.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, state: shown }),
        credentials: 'same-origin',
      });
      if (response.status === 404) return;
      if (!response.ok) throw new Error(`state ${response.status}`);
      const current = (await response.json()) as LiveState;
      shown = current.key ?? current.state;
      // The amount is rewritten when the server's changed (the merchant updated the order), never back over the
      // total the page follows itself (the shipping option the buyer selected).
      const amountChanged = current.shownAmount !== undefined && current.shownAmount !== serverAmount;
      serverAmount = current.shownAmount;
      show(current, amountChanged);
      if (!current.settled) void next();
    } catch {
      setTimeout(() => void next(), RETRY_MS);
    }
  };
  void next();
}

function show(current: LiveState, amountChanged: boolean): void {
  const outcome = paymentOutcome(current.state);
  const state = document.querySelector<HTMLElement>('[data-testid="state"]');
  const text = `Status: ${outcome.status}`;
  // The status is a live region: rewriting the same text would announce it again.
  if (state && state.textContent !== text) {
    state.textContent = text;
    state.dataset.state = current.state;
  }
  // The heading, the summary's colour and the sentence say what happened, as the server renders them.
  const heading = document.querySelector<HTMLElement>('[data-testid="heading"]');
  if (heading && outcome.heading && heading.textContent !== outcome.heading) {
    heading.textContent = outcome.heading;
    document.title = outcome.heading;
  }
  const summary = document.querySelector<HTMLElement>('[data-testid="summary"]');
  if (summary && summary.dataset.tone !== outcome.tone) {
    summary.classList.remove(`tone-${summary.dataset.tone ?? 'waiting'}`);
    summary.classList.add(`tone-${outcome.tone}`);
    summary.dataset.tone = outcome.tone;
  }
  if (outcome.tone === 'failure') document.querySelectorAll<HTMLElement>('[data-unless-failure]').forEach((el) => (el.hidden = true));
  const sentence = document.querySelector<HTMLElement>('[data-testid="outcome"]');
  if (sentence) {
    sentence.textContent = outcome.sentence ?? '';
    sentence.hidden = !outcome.sentence;
  }
  const amount = document.querySelector<HTMLElement>('[data-testid="amount"]');
  if (amount && amountChanged && amount.textContent !== current.shownAmount) amount.textContent = current.shownAmount!;
  if (current.awaitsUser) return;
  // Decided elsewhere (approved, cancelled, expired): the choices are gone, the way back to the merchant shows.
  // The amount is no longer waiting for a shipping choice.
  document.querySelector('[data-testid="amount-note"]')?.remove();
  const choices = document.querySelector('[data-awaits-user]');
  if (!choices) return;
  const hadFocus = choices.contains(document.activeElement);
  choices.remove();
  const back = document.querySelector<HTMLElement>('[data-back]');
  back?.removeAttribute('hidden');
  // Focus was on a form that is gone: put it where the page now continues, not back at the top of the document.
  if (!hadFocus) return;
  const link = back?.querySelector<HTMLElement>('a');
  if (link) {
    link.focus();
  } else if (state) {
    state.tabIndex = -1;
    state.focus();
  }
}
