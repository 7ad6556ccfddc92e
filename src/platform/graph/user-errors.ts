import { GraphQLError } from 'graphql';
import { AppError } from '../errors/app-error.js';
import { errorEntry, type ErrorCode } from '../errors/catalogue.js';

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
  /** The interface's public code of the refusal (ePayment's four digits), null where it has none; a domain's user error type may publish it. */
  errorCode: string | null;
  field: string | null;
  message: string;
}

/**
 * The codes a mutation reports as `userErrors`, from the graph's enum of that domain. Taking a record checks two
 * things at compile time: every value of the enum is listed (a new enum value cannot be forgotten here), and every
 * value is a declared catalogue code (the enum cannot name a failure no service raises).
 */
export function userErrorCodes<C extends ErrorCode>(codes: Record<C, true>): readonly C[] {
  return Object.keys(codes) as C[];
}

export async function withUserErrors<T extends object, C extends string>(
  allowed: readonly C[],
  run: () => Promise<T>,
): Promise<Partial<T> & { userErrors: UserError<C>[] }> {
  try {
    return { ...(await run()), userErrors: [] };
  } catch (error) {
    const code = error instanceof AppError ? (errorEntry(error.code).graphCode ?? error.code) : undefined;
    if (error instanceof AppError && (allowed as readonly string[]).includes(code!)) {
      const errors = error.details.length ? error.details : [{ name: null, reason: error.message }];
      return <Partial<T> & { userErrors: UserError<C>[] }>{
        userErrors: errors.map((d) => ({
          code: code as C,
          errorCode: errorEntry(error.code).vippsCode ?? null,
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
