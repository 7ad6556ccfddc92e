import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors/app-error.js';
import type { HttpRequest } from './http-types.js';

const MAX_BODY_BYTES = 1024 * 1024;

export async function readBody(message: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of message) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than 1 MiB');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * The JSON body, or undefined when there is none. Real clients send `Content-Type: application/json` with an
 * empty body on POST, so an empty body is never an error here; the operation decides whether it needs one.
 */
export function jsonBody(request: HttpRequest): unknown {
  const text = request.rawBody.toString('utf8').trim();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError('MALFORMED_JSON', 'The request body is not valid JSON', [
      { name: 'body', reason: 'The request body is not valid JSON' },
    ]);
  }
}
