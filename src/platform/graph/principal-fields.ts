import { GraphQLError, type OperationDefinitionNode } from 'graphql';
import type { Principal } from '../auth/principal.js';

/**
 * The graph serves merchants and partners everywhere, and a PSP only on its own root fields: those whose name says
 * PSP (`pspPayments`, `initiatePspPayment`, ...), `viewer`, which shows every caller what it acts for (a PSP:
 * the merchants it signed up), and the test clock of the sales unit it acts for (its nightly batch goes by it). A PSP selecting any other root field (the merchant's payments, webhooks, `node`,
 * even `__typename`) is refused with 403 before any resolver runs, on both faces.
 */
const PSP_SHARED_ROOT_FIELDS = new Set(['viewer', 'testClock', 'advanceTestClock']);

export function refusedRootFields(principal: Principal, operation: OperationDefinitionNode): string[] {
  if (principal.kind !== 'psp') return [];
  const refused: string[] = [];
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== 'Field') refused.push('(fragment)');
    else if (!/psp/i.test(selection.name.value) && !PSP_SHARED_ROOT_FIELDS.has(selection.name.value)) refused.push(selection.name.value);
  }
  return refused;
}

export function forbiddenFieldsError(fields: readonly string[]): GraphQLError {
  return new GraphQLError(`These credentials may not use ${fields.join(', ')}`, {
    extensions: { code: 'FORBIDDEN', http: { status: 403 } },
  });
}
