import { checkStateMachine, statesOf } from '../../src/platform/state-machine.js';
import { checkoutSessionStateMachine, isEndState } from '../../src/checkout/checkout-session.transitions.js';
import { createTestDatabase, onPostgres } from '../support/test-database.js';
import { startTestApp } from '../support/test-app.js';
import { CheckoutClient, newSessionReference } from './support/checkout-client.js';
import { MerchantEndpoints } from './support/merchant-endpoints.js';

test('the session table is well formed: every state reachable, the three end states final, every other one can end', () => {
  expect(() => checkStateMachine(checkoutSessionStateMachine)).not.toThrow();
  const ends = statesOf(checkoutSessionStateMachine).filter(isEndState);
  expect(ends.sort()).toEqual(['PaymentSuccessful', 'PaymentTerminated', 'SessionExpired']);
  for (const state of statesOf(checkoutSessionStateMachine).filter((s) => !isEndState(s))) {
    expect(checkoutSessionStateMachine.transitions[state]).toEqual(expect.arrayContaining(['PaymentTerminated', 'SessionExpired']));
  }
});

// Two instances over one server database, one after the other: only PostgreSQL outlives an instance.
(onPostgres ? test : test.skip)(
  'a callback that failed before a restart is delivered by the next instance',
  async () => {
    const endpoints = await new MerchantEndpoints().start();
    const database = await createTestDatabase({ migrated: true });
    let up = false;
    const callbackUrl = endpoints.on('/cb-restart', () => ({ status: up ? 200 : 503 }));
    try {
      const first = await startTestApp({ databaseUrl: database.databaseUrl });
      const reference = newSessionReference();
      const created = await new CheckoutClient(first.baseUrl).createSession({
        merchantInfo: { callbackUrl },
        transaction: { reference },
        logistics: null,
        configuration: { elements: 'PaymentOnly' },
      });
      await fetch(`${first.baseUrl}/checkout/page/cancel?token=${encodeURIComponent(created.body.token)}`, { method: 'POST' });
      for (const deadline = Date.now() + 10_000; endpoints.at('/cb-restart').length < 1;) {
        if (Date.now() > deadline) throw new Error('no first attempt');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await first.close(); // joined the database, so it is left as it is

      up = true;
      const second = await startTestApp({ databaseUrl: database.databaseUrl });
      try {
        // The retry is due on the new instance's clock once the backoff has passed.
        for (const deadline = Date.now() + 10_000; endpoints.at('/cb-restart').length < 2;) {
          if (Date.now() > deadline) throw new Error('the callback was not retried after the restart');
          second.clock.advance(60_000);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        const attempts = endpoints.at('/cb-restart');
        expect(attempts.length).toBeGreaterThanOrEqual(2);
        expect(attempts.at(-1)!.body).toMatchObject({ reference, sessionState: 'PaymentTerminated' });
        expect(attempts.at(-1)!.headers.authorization).toBe('cb-token-123');
      } finally {
        await second.close();
      }
    } finally {
      await database.drop();
      await endpoints.stop();
    }
  },
  60_000,
);
