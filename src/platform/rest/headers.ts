import { headerLookup, type HeaderLookup } from '../auth/header-lookup.js';
import type { HttpRequest } from './http-types.js';

/** The request's headers as authentication and header rules read them. */
export function requestHeaders(request: HttpRequest): HeaderLookup {
  return headerLookup(request.headers);
}
