import type { HttpRequest, Route } from './http-types.js';

interface CompiledRoute {
  route: Route;
  regex: RegExp;
  names: string[];
}

export interface RouteMatch {
  route: Route;
  params: Record<string, string>;
}

/** Matches a method and path to a route; tells apart "no such path" from "path exists, wrong method". */
export class Router {
  private readonly compiled: CompiledRoute[] = [];

  add(...routes: Route[]): void {
    for (const route of routes) {
      const names: string[] = [];
      const source = route.pattern
        .split('/')
        .map((segment) => {
          const param = /^\{(\w+)\}$/.exec(segment);
          if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
          names.push(param[1]!);
          return '([^/]+)';
        })
        .join('/');
      this.compiled.push({ route, regex: new RegExp(`^${source}/?$`), names });
    }
  }

  get routes(): readonly Route[] {
    return this.compiled.map((c) => c.route);
  }

  match(request: Pick<HttpRequest, 'method' | 'path'>): RouteMatch | { allowed: string[] } | undefined {
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
        params[name] = safeDecode(found[i + 1]!);
      });
      return { route, params };
    }
    return allowed.length > 0 ? { allowed } : undefined;
  }
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
