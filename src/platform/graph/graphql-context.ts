import type { SalesUnitScope, TenancyScope } from '../auth/tenancy-scope.js';
import type { RequestContext, Services } from '../context.js';

/** What every resolver gets: the authenticated request context and the process services. */
export interface GraphQLContext<S extends TenancyScope = TenancyScope> {
  request: RequestContext<S>;
  services: Services;
  /** The address an HTTP request came from: the admission charges a document it refuses to it too. */
  address?: string;
  /** The registered document an HTTP request named (its text is what Apollo Server was handed): for the admission. */
  documentId?: string;
}

/** The context of an operation the admission narrowed to one sales unit (a subscription's source, a resolver's). */
export type SalesUnitGraphQLContext = GraphQLContext<SalesUnitScope>;

/**
 * The context type of a field declared `@salesUnit` (codegen.ts: `directiveContextTypes`): the admission refused
 * every operation selecting it without a sales unit (sales-unit-fields.ts), so its resolver is typed narrowed.
 */
export type SalesUnitField<C> = C & SalesUnitGraphQLContext;
