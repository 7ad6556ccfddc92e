import { GraphQLError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Principal } from '../auth/principal.js';

/**
 * The graph serves merchants and partners everywhere, and a PSP only on its own root fields: those whose name says
 * PSP (`pspPayments`, `initiatePspPayment`, ...), `viewer`, which shows every caller what it acts for (a PSP:
 * the merchants it signed up), and the test clock of the sales unit it acts for (its nightly batch goes by it). A PSP selecting any other root field (the merchant's payments, webhooks, `node`,
 * even `__typename`) is refused with 403 before any resolver runs, on both faces.
 */
const PSP_SHARED_ROOT_FIELDS = new Set(['viewer', 'testClock', 'advanceTestClock']);

/**
 * The operator's root fields are the ones the schema marks `@operatorOnly` (schema/operator.graphql): the operator's
 * client may use those and nothing else (it covers no sales unit), and no other principal may use them. A root
 * fragment is refused to an operator like to a PSP; one that hides an operator field from a merchant meets the
 * resolver's own check (`operatorCall`).
 */
export function refusedRootFields(schema: GraphQLSchema, principal: Principal, operation: OperationDefinitionNode): string[] {
  const root = schema.getRootType(operation.operation);
  const operatorOnly = (name: string): boolean =>
    root?.getFields()[name]?.astNode?.directives?.some((d) => d.name.value === 'operatorOnly') ?? false;
  const refused: string[] = [];
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== 'Field') {
      if (principal.kind === 'psp' || principal.kind === 'operator') refused.push('(fragment)');
      continue;
    }
    const name = selection.name.value;
    if (principal.kind === 'operator') {
      if (!operatorOnly(name)) refused.push(name);
    } else if (operatorOnly(name)) refused.push(name);
    else if (principal.kind === 'psp' && !/psp/i.test(name) && !PSP_SHARED_ROOT_FIELDS.has(name)) refused.push(name);
  }
  return refused;
}

export function forbiddenFieldsError(fields: readonly string[]): GraphQLError {
  return new GraphQLError(`These credentials may not use ${fields.join(', ')}`, {
    extensions: { code: 'FORBIDDEN', http: { status: 403 } },
  });
}
