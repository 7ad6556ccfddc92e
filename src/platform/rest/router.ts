import type { ErrorFormat } from './error-formats/error-format.js';
import type { HttpRequest } from './http-types.js';
import type { PageRoute } from './page-route.js';
import { openApiDocument } from './openapi.js';
import type { DeclaredRoute, RestInterface } from './rest-interface.js';

type AnyRoute = DeclaredRoute | PageRoute;

interface CompiledRoute {
  route: AnyRoute;
  regex: RegExp;
  names: string[];
}

export type RouteMatch =
  { route: AnyRoute; params: Record<string, string> } | { allowed: string[] } | { document: Record<string, unknown> };

/**
 * Matches a method and path to a route of a declared interface; tells apart "no such path" from "path exists,
 * wrong method", and knows which interface a path belongs to, so even those answers use its error format.
 */
export class Router {
  private readonly compiled: CompiledRoute[] = [];
  private readonly interfaces: RestInterface[] = [];
  private readonly documents = new Map<string, Record<string, unknown>>();

  add(...interfaces: RestInterface[]): void {
    for (const restInterface of interfaces) {
      this.interfaces.push(restInterface);
      this.documents.set(`${restInterface.prefix}/openapi.json`, openApiDocument(restInterface));
      for (const route of restInterface.routes) this.compiled.push(compile(route));
    }
  }

  /** Pages a browser opens: matched like REST routes, but part of no interface and of no OpenAPI document. */
  addPages(...routes: PageRoute[]): void {
    for (const route of routes) this.compiled.push(compile(route));
  }

  /** Every route, REST and page alike (the tenant-isolation matrix and the fuzz suite walk them all). */
  get routes(): readonly AnyRoute[] {
    return this.compiled.map((c) => c.route);
  }

  get declaredInterfaces(): readonly RestInterface[] {
    return this.interfaces;
  }

  /** The interface whose prefix the path is under (the longest, should prefixes nest). */
  interfaceFor(path: string): RestInterface | undefined {
    let found: RestInterface | undefined;
    for (const candidate of this.interfaces) {
      const under = path === candidate.prefix || path.startsWith(`${candidate.prefix}/`);
      if (under && (!found || candidate.prefix.length > found.prefix.length)) found = candidate;
    }
    return found;
  }

  /** The error format of the path's interface; outside every prefix, `fallback`. */
  errorFormatFor(path: string, fallback: ErrorFormat): ErrorFormat {
    return this.interfaceFor(path)?.errorFormat ?? fallback;
  }

  /** How large a body the route of this method and path reads: its own limit, else the default. */
  bodyLimitFor(request: Pick<HttpRequest, 'method' | 'path'>, fallback: number): number {
    const match = this.match(request);
    return match && 'route' in match && 'maxBodyBytes' in match.route && match.route.maxBodyBytes ? match.route.maxBodyBytes : fallback;
  }

  match(request: Pick<HttpRequest, 'method' | 'path'>): RouteMatch | undefined {
    const document = this.documents.get(request.path);
    if (document) return request.method === 'GET' ? { document } : { allowed: ['GET'] };
    const allowed: string[] = [];
    for (const { route, regex, names } of this.compiled) {
      const found = regex.exec(request.path);
      if (!found) continue;
      if (route.method !== request.method) {
        allowed.push(route.method);
        continue;
      }
      const params: Record<string, string> = {};
      names.forEach((name, i) => {
        params[name] = safeDecode(found[i + 1] ?? '');
      });
      return { route, params };
    }
    return allowed.length > 0 ? { allowed } : undefined;
  }
}

function compile(route: AnyRoute): CompiledRoute {
  const names: string[] = [];
  const source = route.pattern
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1]);
      return '([^/]+)';
    })
    .join('/');
  return { route, regex: new RegExp(`^${source}/?$`), names };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
