import { AppError, type ErrorDetail } from '../errors/app-error.js';
import { CONTROL_CHARACTER_REASON, hasControlCharacter } from '../validation/control-characters.js';
import type { HttpRequest } from './http-types.js';

/**
 * The text a request carries outside its JSON body, checked once where it enters, for every REST route and page:
 * path parameters, query parameters and a form body (the pages' posts) may carry no control character
 * (control-characters.ts says which). A refusal is a 400 naming each parameter. JSON bodies are checked by the
 * request-shape layer, headers by Node's HTTP parser, which refuses control characters in them before any route.
 */
export function refuseControlCharacters(request: HttpRequest): void {
  const details: ErrorDetail[] = [];
  const check = (name: string, value: string) => {
    if (hasControlCharacter(name) || hasControlCharacter(value)) details.push({ name: cleaned(name), reason: CONTROL_CHARACTER_REASON });
  };
  for (const [name, value] of Object.entries(request.params)) check(name, value);
  for (const [name, value] of request.query) check(name, value);
  if (isForm(request)) for (const [name, value] of new URLSearchParams(request.rawBody.toString('utf8'))) check(name, value);
  if (details.length > 0) throw AppError.validation(details);
}

function isForm(request: HttpRequest): boolean {
  const type = request.headers['content-type'];
  return typeof type === 'string' && type.toLowerCase().startsWith('application/x-www-form-urlencoded');
}

/** A parameter's name as it can be shown back: its control characters as escapes. */
function cleaned(name: string): string {
  return name.replace(/[\u0000-\u001f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
