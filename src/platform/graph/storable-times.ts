import { getNamedType, GraphQLError, type ASTVisitor, type ValidationContext } from 'graphql';
import { DATE_REASON, DATE_TIME_REASON, storableDate, storableDateTime } from '../validation/storable-time.js';

/** The scalars whose written values the rule checks, with the check and the reason it gives. */
const TIME_SCALARS: Record<string, { accepts(text: string): boolean; reason: string }> = {
  DateTime: { accepts: (text) => storableDateTime(text) !== undefined, reason: DATE_TIME_REASON },
  Date: { accepts: (text) => storableDate(text) !== undefined, reason: DATE_REASON },
};

/**
 * A `DateTime` or `Date` written in the document that the database cannot store, refused naming its argument or
 * input field (`filter.createdFrom`). A scalar's own parse knows the value but not where it was written, so the
 * scalars leave their written values to this rule, which every face validates with; values in
 * variables are refused by the scalars, and graphql-js names the variable's path.
 */
export function storableTimesRule(context: ValidationContext): ASTVisitor {
  const path: string[] = [];
  return {
    Argument: { enter: (node) => void path.push(node.name.value), leave: () => void path.pop() },
    ObjectField: { enter: (node) => void path.push(node.name.value), leave: () => void path.pop() },
    StringValue: (node) => {
      const type = context.getInputType();
      const scalar = type ? TIME_SCALARS[getNamedType(type).name] : undefined;
      if (!scalar || scalar.accepts(node.value)) return;
      const name = path.join('.');
      context.reportError(
        new GraphQLError(`${name}: ${scalar.reason}; found ${JSON.stringify(node.value)}`, {
          nodes: node,
          extensions: { code: 'BAD_USER_INPUT', field: name, details: [{ name, reason: scalar.reason }] },
        }),
      );
    },
  };
}
