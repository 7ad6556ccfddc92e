import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors/app-error.js';
import { parseJson } from '../validation/json-text.js';
import type { HttpRequest } from './http-types.js';

/** The request body limit of every route that declares none of its own. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The client hung up before its request body arrived whole: nothing failed on our side and nobody waits for an
 * answer, so it is no 5xx and counts against nobody.
 */
export class ClientClosedRequest extends Error {
  constructor() {
    super('The client closed the connection before the request body was complete');
  }
}

export function readBody(message: IncomingMessage, maxBytes: number = MAX_BODY_BYTES): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // Node reports a hang-up mid-body as an 'error' (ECONNRESET "aborted") and then 'close' without 'end'.
    const closedEarly = () => {
      if (!message.complete) reject(new ClientClosedRequest());
    };
    message.on('close', closedEarly);
    const chunks: Buffer[] = [];
    let size = 0;
    message.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Past the limit the rest is read and dropped rather than the stream destroyed: destroying it resets the
      // connection, and the client would see a reset instead of the 413 that tells it why.
      if (size <= maxBytes) chunks.push(chunk);
    });
    message.on('end', () => {
      if (size > maxBytes) reject(new AppError('PAYLOAD_TOO_LARGE', `The request body is larger than ${describeBytes(maxBytes)}`));
      else resolve(Buffer.concat(chunks));
    });
    message.on('error', (error) => reject(message.complete ? error : new ClientClosedRequest()));
  });
}

function describeBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

/**
 * The JSON body, or undefined when there is none. Real clients send `Content-Type: application/json` with an
 * empty body on POST, so an empty body is never an error here; the operation decides whether it needs one. Each
 * number's text is kept, for the request-shape layer to read a number where a string is declared as written.
 */
export function jsonBody(request: HttpRequest, options: { numberTexts?: boolean } = {}): unknown {
  const text = request.rawBody.toString('utf8').trim();
  if (text === '') return undefined;
  try {
    // The graph coerces its own numbers and never asks for their text: it skips the reviver's pass over each value.
    return options.numberTexts === false ? (JSON.parse(text) as unknown) : parseJson(text);
  } catch {
    throw new AppError('MALFORMED_JSON', 'The request body is not valid JSON', [
      { name: 'body', reason: 'The request body is not valid JSON' },
    ]);
  }
}
