import { request } from 'node:http';

/**
 * What the PHP plugins put on the wire, for replay tests written from their code: header names in their own casing
 * and order, and bodies as PHP's json_encode writes them.
 */

/** A PHP float: json_encode writes an integral one with `.0` (`round()` and `* 100` give floats in PHP). */
export class PhpFloat {
  constructor(readonly value: number) {}
}
export const float = (value: number) => new PhpFloat(value);

export type PhpValue = null | boolean | number | string | PhpFloat | PhpValue[] | { [key: string]: PhpValue };

/**
 * json_encode with its default flags: `/` escaped as `\/`, everything outside ASCII as `\uXXXX`, an empty PHP array
 * as `[]`, integral floats with `.0` (serialize_precision -1, PHP 7.1 and later).
 */
export function phpJsonEncode(value: PhpValue): string {
  if (value === null) return 'null';
  if (value instanceof PhpFloat) return Number.isInteger(value.value) ? `${value.value}.0` : String(value.value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') {
    return JSON.stringify(value)
      .replace(/\//g, '\\/')
      .replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  }
  if (Array.isArray(value)) return `[${value.map(phpJsonEncode).join(',')}]`;
  return `{${Object.entries(value)
    .map(([key, item]) => `${phpJsonEncode(key)}:${phpJsonEncode(item)}`)
    .join(',')}}`;
}

export interface WireAnswer {
  status: number;
  text: string;
  json: any;
}

/**
 * One request with exactly these headers (names as written, in order, after Host, with a Content-Length added
 * where curl adds one) and this body text,
 * as PHP's HTTP clients send it.
 */
export function sendAsPhp(baseUrl: string, method: string, path: string, headers: [string, string][], body?: string): Promise<WireAnswer> {
  const url = new URL(path, baseUrl);
  // curl adds the length of a body it sends; a client that sets it itself (WordPress) keeps its own spelling.
  const sent =
    body !== undefined && !headers.some(([name]) => name.toLowerCase() === 'content-length')
      ? [...headers, ['Content-Length', String(Buffer.byteLength(body))] as [string, string]]
      : headers;
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: [['Host', url.host], ...sent].flat() }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, text, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The status, with the body when it is not a success: what a failed expectation should show. */
export function outcome(answer: { status: number; text: string }): string {
  return answer.status >= 200 && answer.status < 300 ? String(answer.status) : `${answer.status} ${answer.text}`;
}
