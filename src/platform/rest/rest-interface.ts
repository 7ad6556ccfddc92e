import type { HeaderLookup } from '../auth/header-lookup.js';
import { readHeaders, type HeaderRules, type RequestHeaders } from '../auth/header-rules.js';
import { createRequestContext, type AuthRule, type ScopeRule } from '../auth/request-context.js';
import type { RequestContext, SalesUnitContext, Services } from '../context.js';
import { AppError } from '../errors/app-error.js';
import { callerAddress } from '../rate-limit/admission.js';
import { jsonBody } from './body.js';
import type { BodyShape } from './body-shape.js';
import type { ErrorFormat } from './error-formats/error-format.js';
import { requestHeaders } from './headers.js';
import type { HttpRequest, HttpResponse } from './http-types.js';
import type { ParamName, ParamRule, PathParams } from './path-params.js';

/**
 * `public`: no credentials of an API client (the wallet user's pages and token, the token endpoint itself);
 * otherwise the request front authenticates, scopes and checks headers before the route's handler runs.
 */
export type InterfaceAuth = 'public' | AuthRule;
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One public REST interface: everything under `prefix` answers in its error format, with its auth and header rules. */
export interface RestInterfaceDeclaration<A extends InterfaceAuth> {
  name: string;
  /** Path prefix, e.g. `/epayment/v1`; route paths are relative to it. */
  prefix: string;
  errorFormat: ErrorFormat;
  auth: A;
  /** Absent: the interface reads no headers (browser pages). */
  headers?: HeaderRules;
}

/** What a public route's handler gets instead of a request context. */
export interface PublicContext {
  traceId: string;
  lookupHeader: HeaderLookup;
  /** Where the request came from, behind the trusted proxies (the token endpoint's lockout counts by it). */
  callerAddress: string;
}

/**
 * What an interface's auth declares its routes act for: its `scope`, else one sales unit. An auth typed only as
 * `AuthRule` (its scope not known to the compiler) may act for anything, so its handlers get the wide context.
 */
type ScopeOfAuth<A> = A extends { readonly scope: infer R extends ScopeRule } ? R : 'scope' extends keyof A ? ScopeRule : 'salesUnit';

/** What a route acts for: its own `scope`, else its interface's. */
export type RouteScope<A extends InterfaceAuth, S extends ScopeRule | undefined> = S extends ScopeRule ? S : ScopeOfAuth<A>;

/**
 * The context a handler gets, narrowed by the route's declared scope: a route that acts for one sales unit gets a
 * `SalesUnitContext` (the front answered the 400 naming `Merchant-Serial-Number` before the handler runs), any other
 * the context of the principal, which names a sales unit or not.
 */
export type HandlerContext<A extends InterfaceAuth, S extends ScopeRule = 'salesUnit'> = A extends AuthRule
  ? S extends 'salesUnit'
    ? SalesUnitContext
    : RequestContext
  : PublicContext;

/** A handler's checked inputs. */
export interface RouteValues<P extends string, B, I extends boolean> {
  params: PathParams<P>;
  body: B;
  /** Required, and so present, exactly on idempotent routes. */
  idempotencyKey: I extends true ? string : undefined;
  headers: RequestHeaders;
  query: URLSearchParams;
  /** For the few bodies that are not JSON (the landing page's form). */
  rawBody: Buffer;
  /** Any request header, for the few operations that read one beyond the interface's rules (QR: `Accept`, `Size`). */
  lookupHeader: HeaderLookup;
}

export interface RouteDeclaration<
  A extends InterfaceAuth,
  P extends string,
  B,
  I extends boolean,
  S extends ScopeRule | undefined = undefined,
> {
  method: HttpMethod;
  /** Relative to the interface's prefix, with `{name}` parameters. */
  path: P;
  summary: string;
  /** Requires an `Idempotency-Key` header; the handler runs its operation at most once per key. */
  idempotent: I;
  params?: { readonly [K in ParamName<P>]?: ParamRule };
  body?: BodyShape<B>;
  /** The success status and, where declared, its body's JSON Schema, for the OpenAPI document. */
  success: RouteSuccess;
  /**
   * A public route that checks a token of its own in its handler (the wallet user's token) names its scheme here,
   * for the OpenAPI document: a bearer token and the subscription key.
   */
  documentedAuth?: 'bearer';
  /** What the route acts for, where it differs from the interface's rule (one sales unit, a merchant, the principal). */
  scope?: S;
  /** The route's header rules, where they differ from the interface's (an operation that also takes `User-Token`). */
  headers?: HeaderRules;
  /** A larger request body than the default 1 MiB (an image upload); every other route keeps the default. */
  maxBodyBytes?: number;
  handler(ctx: HandlerContext<A, RouteScope<A, S>>, values: RouteValues<P, B, I>): Promise<HttpResponse>;
}

/** What a route answers when it succeeds, as the OpenAPI document shows it. */
export interface RouteSuccess {
  status: number;
  description: string;
  /** A JSON Schema (a TypeBox schema is one). */
  schema?: object;
}

/** A declared route with its types settled: what the router and the OpenAPI document need. */
export interface DeclaredRoute {
  method: HttpMethod;
  /** The full path pattern, prefix included. */
  pattern: string;
  path: string;
  summary: string;
  idempotent: boolean;
  params: Readonly<Record<string, ParamRule | undefined>>;
  body: BodyShape<unknown> | undefined;
  success: RouteSuccess;
  /** The route's credentials and header rules: the interface's, or its own. */
  auth: InterfaceAuth;
  headers: HeaderRules | undefined;
  documentedAuth?: 'bearer';
  maxBodyBytes?: number;
  /**
   * `admitAuthenticated` runs once the front accepted the caller's credentials and scope, before the path and body
   * are read: the quotas keyed by what the request names (a reference and MSN) are charged there.
   */
  run(request: HttpRequest, admitAuthenticated?: () => Promise<void>): Promise<HttpResponse>;
}

export interface RestInterface {
  name: string;
  prefix: string;
  errorFormat: ErrorFormat;
  auth: InterfaceAuth;
  headers: HeaderRules | undefined;
  routes: readonly DeclaredRoute[];
}

/**
 * Declares one route. `auth` overrides the interface's for the one operation of an interface that takes another
 * kind of credential (userinfo's `userinfo/`, which takes the wallet user's token: `public` to the front).
 */
export type RouteBuilder<A extends InterfaceAuth> = <
  P extends string,
  B = undefined,
  I extends boolean = false,
  R extends InterfaceAuth = A,
  S extends ScopeRule | undefined = undefined,
>(
  route: RouteDeclaration<R, P, B, I, S> & { auth?: R },
) => DeclaredRoute;

/**
 * Declares an interface and its routes. Every route runs the same front, in one order: credentials (401), the kind
 * of principal and the scope it acts for (400 for a missing MSN, 403), the header rules (400), path parameters,
 * then the body (400), then the handler.
 */
export function defineRestInterface<A extends InterfaceAuth>(
  services: Services,
  declaration: RestInterfaceDeclaration<A>,
  declareRoutes: (route: RouteBuilder<A>) => DeclaredRoute[],
): RestInterface {
  const route: RouteBuilder<A> = (declared) => ({
    method: declared.method,
    pattern: declaration.prefix + declared.path,
    path: declared.path,
    summary: declared.summary,
    idempotent: declared.idempotent,
    params: declared.params ?? {},
    body: declared.body,
    success: declared.success,
    auth: declared.auth ?? declaration.auth,
    headers: declared.headers ?? declaration.headers,
    ...(declared.documentedAuth ? { documentedAuth: declared.documentedAuth } : {}),
    ...(declared.maxBodyBytes ? { maxBodyBytes: declared.maxBodyBytes } : {}),
    run: (request, admitAuthenticated) => runRoute(services, declaration, declared, request, admitAuthenticated),
  });
  const { name, prefix, errorFormat, auth, headers } = declaration;
  return { name, prefix, errorFormat, auth, headers, routes: declareRoutes(route) };
}

async function runRoute<
  A extends InterfaceAuth,
  P extends string,
  B,
  I extends boolean,
  R extends InterfaceAuth,
  S extends ScopeRule | undefined,
>(
  services: Services,
  declaration: RestInterfaceDeclaration<A>,
  route: RouteDeclaration<R, P, B, I, S> & { auth?: R },
  request: HttpRequest,
  admitAuthenticated: (() => Promise<void>) | undefined,
): Promise<HttpResponse> {
  const lookupHeader = requestHeaders(request);
  const auth: InterfaceAuth = route.auth ?? declaration.auth;
  const rules = route.headers ?? declaration.headers;
  const front = await frontOf(
    services,
    { name: declaration.name, auth, rules, scope: route.scope },
    route.idempotent,
    request,
    lookupHeader,
  );
  if (auth !== 'public') await admitAuthenticated?.();
  const params = checkedParams(route, request.params);
  const body = (route.body ? route.body.parse(jsonBody(request)) : undefined) as B;
  const values: RouteValues<P, B, I> = {
    params,
    body,
    idempotencyKey: idempotencyKeyOf(route.idempotent, front.headers),
    headers: front.headers,
    query: request.query,
    rawBody: request.rawBody,
    lookupHeader,
  };
  // The front settled the scope by the same rule the type reads (the route's, else its auth's, else one sales unit),
  // and refused a request naming no sales unit where the route acts for one.
  return route.handler(front.ctx as HandlerContext<R, RouteScope<R, S>>, values);
}

async function frontOf(
  services: Services,
  route: { name: string; auth: InterfaceAuth; rules: HeaderRules | undefined; scope: ScopeRule | undefined },
  idempotent: boolean,
  request: HttpRequest,
  lookupHeader: HeaderLookup,
): Promise<{ ctx: RequestContext | PublicContext; headers: RequestHeaders }> {
  const { auth, rules } = route;
  if (auth !== 'public' && rules) {
    const front = await createRequestContext(services, lookupHeader, {
      traceId: request.traceId,
      auth,
      headers: rules,
      idempotent,
      scope: route.scope,
      callerAddress: callerAddress(services, request),
    });
    request.authenticated = true;
    return front;
  }
  if (auth !== 'public') throw new Error(`REST interface ${route.name} authenticates but declares no header rules`);
  const headers = rules
    ? readHeaders(lookupHeader, rules, idempotent)
    : { msn: undefined, idempotencyKey: undefined, pspId: undefined, userToken: undefined };
  return { ctx: { traceId: request.traceId, lookupHeader, callerAddress: callerAddress(services, request) }, headers };
}

function checkedParams<P extends string>(
  route: { params?: { readonly [K in ParamName<P>]?: ParamRule } },
  raw: Record<string, string>,
): PathParams<P> {
  const rules: Readonly<Record<string, ParamRule | undefined>> = route.params ?? {};
  for (const [name, rule] of Object.entries(rules)) {
    const value = raw[name];
    if (rule && (value === undefined || !rule.accepts(value))) throw AppError.validation([{ name, reason: rule.reason }]);
  }
  // The router matched the route's own pattern, so `raw` has exactly the pattern's parameters.
  return raw as PathParams<P>;
}

function idempotencyKeyOf<I extends boolean>(idempotent: I, headers: RequestHeaders): I extends true ? string : undefined {
  if (!idempotent) return undefined as I extends true ? string : undefined;
  // The header rules required the key on this route, so it is there.
  if (headers.idempotencyKey === undefined) throw AppError.validation([{ name: 'Idempotency-Key', reason: 'The header is required' }]);
  return headers.idempotencyKey as I extends true ? string : undefined;
}
