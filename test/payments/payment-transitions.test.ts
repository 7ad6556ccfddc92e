/** @database-free (code and files only, no database: CI runs this file in one pass, jest.config.js) */
import { assertTransition, canTransition, paymentStates, paymentTransitions } from '../../src/payments/payment.transitions.js';

describe('payment state machine', () => {
  test('CREATED can become each final state, and every other state is final', () => {
    expect(paymentTransitions.CREATED).toEqual(['AUTHORIZED', 'ABORTED', 'EXPIRED', 'TERMINATED']);
    for (const from of paymentStates.filter((s) => s !== 'CREATED')) expect(paymentTransitions[from]).toEqual([]);
  });

  test.each(paymentStates.flatMap((from) => paymentStates.map((to) => [from, to] as const)))(
    '%s -> %s agrees with the table',
    (from, to) => {
      const allowed = paymentTransitions[from].includes(to);
      expect(canTransition(from, to)).toBe(allowed);
      if (allowed) expect(() => assertTransition(from, to)).not.toThrow();
      else expect(() => assertTransition(from, to)).toThrow(/Illegal payment transition/);
    },
  );
});
