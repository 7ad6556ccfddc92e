/** @database-free (code and files only, no database: CI runs this file in one pass, jest.config.js) */
import {
  assertTransition,
  canTransition,
  checkStateMachine,
  checkStateMachines,
  defineStateMachine,
  statesOf,
} from '../../src/platform/state-machine.js';
import { paymentStateMachine } from '../../src/payments/payment.transitions.js';

/** The generic helper every transition table uses, and the boot check the app runs over them. */

type Door = 'CLOSED' | 'OPEN' | 'LOCKED';
const door = defineStateMachine<Door>('door', 'CLOSED', { CLOSED: ['OPEN', 'LOCKED'], OPEN: ['CLOSED'], LOCKED: ['CLOSED'] });

test('transitions follow the table, and an illegal one names the machine', () => {
  for (const from of statesOf(door))
    for (const to of statesOf(door)) expect(canTransition(door, from, to)).toBe(door.transitions[from].includes(to));
  expect(() => assertTransition(door, 'CLOSED', 'OPEN')).not.toThrow();
  expect(() => assertTransition(door, 'OPEN', 'LOCKED')).toThrow('Illegal door transition OPEN -> LOCKED');
});

test('a well-formed table passes the boot check, and so does every table the app runs', () => {
  expect(() => checkStateMachine(door)).not.toThrow();
  expect(() => checkStateMachines([paymentStateMachine])).not.toThrow();
});

test('a table naming a state it does not define fails the boot check', () => {
  const typo = defineStateMachine<string>('door', 'CLOSED', { CLOSED: ['OPEN'], OPEN: ['CLOSSED'] });
  expect(() => checkStateMachine(typo)).toThrow('State machine door: OPEN -> unknown state CLOSSED');
  const unknownStart = defineStateMachine<string>('door', 'AJAR', { CLOSED: [] });
  expect(() => checkStateMachine(unknownStart)).toThrow('State machine door: unknown initial state AJAR');
});

test('a table holding a state nothing reaches fails the boot check', () => {
  const orphan = defineStateMachine<Door>('door', 'CLOSED', { CLOSED: ['OPEN'], OPEN: ['CLOSED'], LOCKED: ['CLOSED'] });
  expect(() => checkStateMachine(orphan)).toThrow('State machine door: unreachable state LOCKED');
  expect(() => checkStateMachines([door, orphan])).toThrow(/unreachable state LOCKED/);
});
