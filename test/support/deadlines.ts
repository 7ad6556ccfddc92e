/**
 * How long a test waits for a condition the service reaches on its own time (a delivery, a subscription's event, a
 * job's run, a listener reconnecting) before it fails. Generous on purpose: a wait whose condition holds returns at
 * once, so only a failing test pays for it, and with the other core busy (CI beside another job) everything takes two
 * to three times as long as on a quiet machine.
 */
export const CONDITION_DEADLINE_MS = 20_000;
