import { GraphQLError } from 'graphql';
import { AppError } from '../errors/app-error.js';
import { catalogue, type ErrorCode } from '../errors/catalogue.js';

const EXCEPTIONAL: Partial<Record<ErrorCode, string>> = {
  UNAUTHORIZED: 'UNAUTHENTICATED',
  INVALID_CLIENT_CREDENTIALS: 'UNAUTHENTICATED',
  FORBIDDEN_SALES_UNIT: 'FORBIDDEN',
  INTERNAL: 'INTERNAL_SERVER_ERROR',
};

/**
 * Runs a mutation: expected failures become typed `userErrors` in the payload, exceptional ones (auth,
 * internal) become GraphQL errors with `extensions.code`.
 */
export interface UserError<C extends string> {
  code: C;
  field: string | null;
  message: string;
}

export async function withUserErrors<T extends object, C extends string>(
  allowed: readonly C[],
  run: () => Promise<T>,
): Promise<Partial<T> & { userErrors: UserError<C>[] }> {
  try {
    return { ...(await run()), userErrors: [] };
  } catch (error) {
    const code = error instanceof AppError ? (catalogue[error.code].graphCode ?? error.code) : undefined;
    if (error instanceof AppError && (allowed as readonly string[]).includes(code!)) {
      const errors = error.details.length ? error.details : [{ name: null, reason: error.message }];
      return <Partial<T> & { userErrors: UserError<C>[] }>{
        userErrors: errors.map((d) => ({
          code: code as C,
          field: d.name,
          message: d.reason === error.message || !d.name ? error.message : `${error.title}: ${d.reason}`,
        })),
      };
    }
    throw toGraphQLError(error);
  }
}

export function toGraphQLError(error: unknown): unknown {
  if (!(error instanceof AppError)) return error;
  return new GraphQLError(error.message, { extensions: { code: EXCEPTIONAL[error.code] ?? error.code, http: { status: error.status } } });
}
