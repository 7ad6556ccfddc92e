import type { ErrorFormat } from './error-formats/error-format.js';
import type { HttpRequest } from './http-types.js';
import type { PageRoute } from './page-route.js';
import type { ParamRule } from './path-params.js';
import { openApiDocument } from './openapi.js';
import type { DeclaredRoute, RestInterface } from './rest-interface.js';

type AnyRoute = DeclaredRoute | PageRoute;

/** A fixed segment (kept lower-cased) or a parameter, with the enum its rule declares, if any. */
type Segment = { fixed: string } | { param: string; canonical: ReadonlyMap<string, string> | undefined };

interface CompiledRoute {
  route: AnyRoute;
  segments: Segment[];
}

export type RouteMatch =
  { route: AnyRoute; params: Record<string, string> } | { allowed: string[] } | { document: Record<string, unknown> };

/**
 * Matches a method and path to a route of a declared interface or a page, as the platform's gateway does: fixed
 * segments in any letter case, a parameter whose rule declares an enum in any case too (handed over in its
 * declared spelling), any other parameter exactly as sent, and an optional trailing slash. Where two patterns
 * match one path, the one with a fixed segment where the other has a parameter wins, whatever the order of
 * declaration. Tells apart "no such path" from "path exists, wrong method", and knows which interface a path
 * belongs to, so even those answers use its error format.
 */
export class Router {
  private compiled: CompiledRoute[] = [];
  private readonly interfaces: RestInterface[] = [];
  private readonly documents = new Map<string, Record<string, unknown>>();

  add(...interfaces: RestInterface[]): void {
    for (const restInterface of interfaces) {
      this.interfaces.push(restInterface);
      this.documents.set(`${restInterface.prefix}/openapi.json`.toLowerCase(), openApiDocument(restInterface));
      this.insert(restInterface.routes.map(compile));
    }
  }

  /** Pages a browser opens: matched like REST routes, but part of no interface and of no OpenAPI document. */
  addPages(...routes: PageRoute[]): void {
    this.insert(routes.map(compile));
  }

  /** Every route, REST and page alike (the tenant-isolation matrix and the fuzz suite walk them all). */
  get routes(): readonly AnyRoute[] {
    return this.compiled.map((c) => c.route);
  }

  get declaredInterfaces(): readonly RestInterface[] {
    return this.interfaces;
  }

  /** The interface whose prefix the path is under (the longest, should prefixes nest), in any letter case. */
  interfaceFor(path: string): RestInterface | undefined {
    const lower = withoutTrailingSlash(path).toLowerCase();
    let found: RestInterface | undefined;
    for (const candidate of this.interfaces) {
      const prefix = candidate.prefix.toLowerCase();
      const under = lower === prefix || lower.startsWith(`${prefix}/`);
      if (under && (!found || candidate.prefix.length > found.prefix.length)) found = candidate;
    }
    return found;
  }

  /** The error format of the path's interface; outside every prefix, `fallback`. */
  errorFormatFor(path: string, fallback: ErrorFormat): ErrorFormat {
    return this.interfaceFor(path)?.errorFormat ?? fallback;
  }

  /** How large a body the matched route reads: its own limit, else the default. */
  static bodyLimitOf(match: RouteMatch | undefined, fallback: number): number {
    return match && 'route' in match && 'maxBodyBytes' in match.route && match.route.maxBodyBytes ? match.route.maxBodyBytes : fallback;
  }

  match(request: Pick<HttpRequest, 'method' | 'path'>): RouteMatch | undefined {
    const path = withoutTrailingSlash(request.path);
    const document = this.documents.get(path.toLowerCase());
    if (document) return request.method === 'GET' ? { document } : { allowed: ['GET'] };
    const segments = path.split('/');
    const allowed: string[] = [];
    for (const { route, segments: pattern } of this.compiled) {
      const params = matchSegments(pattern, segments);
      if (!params) continue;
      if (route.method !== request.method) {
        if (!allowed.includes(route.method)) allowed.push(route.method);
        continue;
      }
      return { route, params };
    }
    return allowed.length > 0 ? { allowed } : undefined;
  }

  /** Keeps the routes ordered most specific first; the sort is stable, so equally specific ones keep their order. */
  private insert(routes: CompiledRoute[]): void {
    this.compiled = [...this.compiled, ...routes].sort((a, b) => bySpecificity(a.segments, b.segments));
  }
}

function compile(route: AnyRoute): CompiledRoute {
  const rules: Readonly<Record<string, ParamRule | undefined>> = 'params' in route ? route.params : {};
  const segments = withoutTrailingSlash(route.pattern)
    .split('/')
    .map((segment): Segment => {
      const param = /^\{(\w+)\}$/.exec(segment)?.[1];
      if (!param) return { fixed: segment.toLowerCase() };
      return { param, canonical: enumOf(rules[param]) };
    });
  return { route, segments };
}

/** A parameter's declared values by their lower-case spelling, when its rule is an enum of strings. */
function enumOf(rule: ParamRule | undefined): ReadonlyMap<string, string> | undefined {
  const values = rule?.jsonSchema.enum;
  if (!Array.isArray(values) || !values.every((v): v is string => typeof v === 'string')) return undefined;
  return new Map(values.map((v) => [v.toLowerCase(), v]));
}

function matchSegments(pattern: readonly Segment[], segments: readonly string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    const sent = segments[i]!;
    if ('fixed' in expected) {
      if (expected.fixed !== sent.toLowerCase()) return undefined;
      continue;
    }
    if (sent === '') return undefined;
    const value = safeDecode(sent);
    params[expected.param] = expected.canonical?.get(value.toLowerCase()) ?? value;
  }
  return params;
}

/**
 * Negative when `a` is the more specific: at the first segment where they differ in kind, the fixed one. Patterns
 * of different lengths never match the same path; the shorter goes first only so that the order is total.
 */
function bySpecificity(a: readonly Segment[], b: readonly Segment[]): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const aFixed = 'fixed' in a[i]!;
    const bFixed = 'fixed' in b[i]!;
    if (aFixed !== bFixed) return aFixed ? -1 : 1;
  }
  return a.length - b.length;
}

/** `/a/b/` is `/a/b`; the root stays `/`. */
function withoutTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
