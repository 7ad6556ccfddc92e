import { defineStateMachine } from '../platform/state-machine.js';
import type { PrefillStatus } from './product-order.entity.js';

/**
 * A pre-filled product order: RECEIVED (or WAITING_FOR_MERCHANT when details must be entered by hand) until the
 * merchant submits it on the prefill page, PROCESSING once submitted, COMPLETED when its sales unit exists.
 * DELETED: undone by the partner before submission. ACCESSED is in the public enum but never used here.
 */
export const productOrderMachine = defineStateMachine<PrefillStatus>('product order', 'RECEIVED', {
  RECEIVED: ['PROCESSING', 'DELETED', 'ACCESSED', 'WAITING_FOR_MERCHANT'],
  ACCESSED: ['PROCESSING', 'DELETED'],
  WAITING_FOR_MERCHANT: ['PROCESSING', 'DELETED'],
  PROCESSING: ['COMPLETED'],
  COMPLETED: [],
  DELETED: [],
});
