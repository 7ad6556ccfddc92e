import { canTransition, checkStateMachine, statesOf } from '../../src/platform/state-machine.js';
import { issueNetworkToken, luhnCheckDigit, passesLuhn } from '../../src/psp/network-token.js';
import { answerAccepts } from '../../src/psp/psp-make-payment.callback.js';
import { pspPaymentStateMachine, type PspPaymentState } from '../../src/psp/psp-payment.transitions.js';
import { canonicalStatus, duePeriod, moneyRefusal } from '../../src/psp/psp-status-update.service.js';

test('the PSP payment state machine: every state reachable, only INITIATED and ACCEPTED move on', () => {
  checkStateMachine(pspPaymentStateMachine);
  const moving = statesOf(pspPaymentStateMachine).filter((s) => pspPaymentStateMachine.transitions[s].length > 0);
  expect(moving).toEqual(['INITIATED', 'ACCEPTED']);
  const edges: [PspPaymentState, PspPaymentState][] = [
    ['INITIATED', 'ACCEPTED'],
    ['INITIATED', 'USER_CANCEL'],
    ['INITIATED', 'TIMEOUT'],
    ['ACCEPTED', 'RESERVED'],
    ['ACCEPTED', 'FAILED'],
  ];
  for (const from of statesOf(pspPaymentStateMachine)) {
    for (const to of statesOf(pspPaymentStateMachine)) {
      expect(canTransition(pspPaymentStateMachine, from, to)).toBe(edges.some(([f, t]) => f === from && t === to));
    }
  }
});

const reserved = {
  state: 'RESERVED' as const,
  amount: 10_000,
  reservedAmount: 10_000,
  capturedAmount: 0,
  cancelledAmount: 0,
  refundedAmount: 0,
};

test.each([
  ['capture up to the reserved amount', reserved, 'CAPTURED', 10_000, undefined],
  ['capture past the reserved amount', reserved, 'CAPTURED', 10_001, 'capture amount too high'],
  [
    'capture after a cancel',
    { ...reserved, capturedAmount: 100, cancelledAmount: 9_900 },
    'CAPTURED',
    1,
    'cannot capture a cancelled payment',
  ],
  [
    'capture before reservation',
    { ...reserved, state: 'ACCEPTED' as const, reservedAmount: 0 },
    'CAPTURED',
    1,
    'cannot capture before reservation',
  ],
  ['refund of what is captured', { ...reserved, capturedAmount: 500 }, 'REFUNDED', 500, undefined],
  ['refund past what is captured', { ...reserved, capturedAmount: 500, refundedAmount: 1 }, 'REFUNDED', 500, 'not enough refundable'],
  ['cancel after partial capture', { ...reserved, capturedAmount: 500 }, 'CANCELLED', 0, undefined],
  ['cancel after full capture', { ...reserved, capturedAmount: 10_000 }, 'CANCELLED', 0, 'cannot cancel a captured payment'],
  ['cancel twice', { ...reserved, cancelledAmount: 10_000 }, 'CANCELLED', 0, 'already cancelled'],
  ['reserve of a token payment', { ...reserved, state: 'ACCEPTED' as const, reservedAmount: 0 }, 'RESERVED', 10_000, undefined],
  [
    'reserve past the amount',
    { ...reserved, state: 'ACCEPTED' as const, reservedAmount: 0 },
    'RESERVED',
    10_001,
    'reserve amount exceeds the payment amount',
  ],
  [
    'reserve of a timed-out payment',
    { ...reserved, state: 'TIMEOUT' as const, reservedAmount: 0 },
    'RESERVED',
    1,
    'cannot reserve a TIMEOUT payment',
  ],
] as const)('money rule: %s', (_, payment, operation, amount, refusal) => {
  expect(moneyRefusal(payment, operation, amount)).toBe(refusal);
});

test('both vocabularies of the status update: the prose maps to the enum, REJECT is a failed reserve', () => {
  expect(canonicalStatus('RESERVE')).toEqual({ operation: 'RESERVED', rejects: false });
  expect(canonicalStatus('CAPTURE')).toEqual({ operation: 'CAPTURED', rejects: false });
  expect(canonicalStatus('REJECT')).toEqual({ operation: 'RESERVED', rejects: true });
  for (const status of ['RESERVED', 'CAPTURED', 'CANCELLED', 'REFUNDED'] as const)
    expect(canonicalStatus(status)).toEqual({ operation: status, rejects: false });
});

test('the nightly period: the batch of a day is due from 02:00 UTC and takes what arrived before then', () => {
  expect(duePeriod(new Date('2026-11-23T01:59:59Z'))).toEqual({ period: '2026-11-22', cutoff: new Date('2026-11-22T02:00:00Z') });
  expect(duePeriod(new Date('2026-11-23T02:00:00Z'))).toEqual({ period: '2026-11-23', cutoff: new Date('2026-11-23T02:00:00Z') });
  expect(duePeriod(new Date('2026-01-01T00:30:00Z')).period).toBe('2025-12-31');
});

test('network tokens: real network ranges, Luhn-valid, expiry ahead, ECI per network', () => {
  expect(luhnCheckDigit('411111111111111')).toBe(1);
  expect(passesLuhn('4111111111111111')).toBe(true);
  expect(passesLuhn('4111111111111112')).toBe(false);
  const now = new Date('2026-11-23T12:00:00Z');
  for (let i = 0; i < 200; i++) {
    const token = issueNetworkToken(now);
    expect(passesLuhn(token.number)).toBe(true);
    expect(token.number).toMatch(token.tokenType === 'VISA' ? /^4\d{15}$/ : /^5[1-5]\d{14}$/);
    expect(token.eci).toBe(token.tokenType === 'VISA' ? '05' : '02');
    expect(`${token.expiryYear}-${token.expiryMonth}`).toBe('2029-11');
  }
});

test.each([
  [200, '{"paymentInfo":{"pspTransactionId":"x","status":"OK"}}', true],
  [200, '{"paymentInfo":{"status":"FAIL"}}', false],
  [200, '{"paymentInfo":{"status":"SOFT_DECLINE"}}', false],
  [200, 'not json', false],
  [200, null, false],
  [201, '{"paymentInfo":{"status":"OK"}}', false],
  [500, '{"paymentInfo":{"status":"OK"}}', false],
  [null, null, false],
])('the PSP answer %s %s accepts: %s', (statusCode, responseBody, accepts) => {
  expect(answerAccepts({ statusCode, responseBody })).toBe(accepts);
});
