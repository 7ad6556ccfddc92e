import { createHash, createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MERCHANT_A } from '../../support/merchant-client.js';
import { phpJsonEncode, sendAsPhp, type PhpValue, type WireAnswer } from '../../support/php-client.js';

/**
 * The WooCommerce plugin's side of the wire (vippsas/vipps-woocommerce 6.0.5, `VippsApi.class.php` and
 * `Vipps.class.php`), as both WooCommerce replays (the ordinary checkout and Express) send and receive it.
 */

const WC_VERSION = '6.8.3/10.3.5'; // get_bloginfo('version') . "/" . WC_VERSION
const PLUGIN_VERSION = '6.0.5';

/** `VippsApi`: its cached access token, its headers and its `http_call`. */
export class WooPlugin {
  accessToken = '';

  constructor(private readonly baseUrl: () => string) {}

  /** `get_access_token_from_vipps`: POST with the credentials as headers and an url-encoded empty body. */
  requestToken(): Promise<WireAnswer> {
    return sendAsPhp(
      this.baseUrl(),
      'POST',
      '/accessToken/get',
      [
        ['client_id', MERCHANT_A.clientId],
        ['client_secret', MERCHANT_A.clientSecret],
        ['Ocp-Apim-Subscription-Key', MERCHANT_A.subscriptionKey],
        ['Connection', 'close'],
        ['Content-length', '0'],
        ['Content-type', 'application/x-www-form-urlencoded'],
      ],
      '',
    );
  }

  /** `get_headers`, in its order. */
  headers(pluginName = 'woo-vipps'): [string, string][] {
    return [
      ['Authorization', `Bearer ${this.accessToken}`],
      ['X-TimeStamp', new Date().toISOString().replace(/\.\d{3}Z$/, '+00:00')],
      ['X-Source-Address', '127.0.0.1'],
      ['Ocp-Apim-Subscription-Key', MERCHANT_A.subscriptionKey],
      ['Merchant-Serial-Number', MERCHANT_A.msn],
      ['Vipps-System-Name', 'woocommerce'],
      ['Vipps-System-Version', WC_VERSION],
      ['Vipps-System-Plugin-Name', pluginName],
      ['Vipps-System-Plugin-Version', PLUGIN_VERSION],
    ];
  }

  /** `http_call`: GET without a body; POST, PUT and PATCH with json_encode($data) and its length. */
  httpCall(verb: string, command: string, headers: [string, string][], data?: PhpValue): Promise<WireAnswer> {
    if (verb === 'GET') return sendAsPhp(this.baseUrl(), verb, `/${command}`, [...headers, ['Connection', 'close']]);
    const body = phpJsonEncode(data ?? []);
    return sendAsPhp(
      this.baseUrl(),
      verb,
      `/${command}`,
      [...headers, ['Connection', 'close'], ['Content-length', String(Buffer.byteLength(body))], ['Content-type', 'application/json']],
      body,
    );
  }
}

/** A call the shop received, as PHP sees it: REQUEST_URI, HTTP_HOST (in the headers), the raw body. */
export interface ReceivedCall {
  requestUri: string;
  headers: IncomingHttpHeaders;
  rawPost: string;
}

/** What the shop answers a call: `Vipps::vipps_callback` answers 202 Accepted before it does anything else. */
export type ShopAnswer = (call: ReceivedCall) => { status: number; body?: string; contentType?: string };
const accepted: ShopAnswer = () => ({ status: 202 });

/** The merchant's site, at the URLs the plugin registers and gives (webhook, shipping callback). */
export class ShopSite {
  readonly received: ReceivedCall[] = [];
  private server?: Server;

  constructor(private readonly answer: ShopAnswer = accepted) {}

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const call = { requestUri: req.url ?? '', headers: req.headers, rawPost: Buffer.concat(chunks).toString('utf8') };
        this.received.push(call);
        const { status, body, contentType } = this.answer(call);
        res.writeHead(status, contentType ? { 'content-type': contentType } : {}).end(body);
      });
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  async waitForCall(condition: (call: ReceivedCall) => boolean, what: string): Promise<ReceivedCall> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const call = this.received.find(condition);
      if (call) return call;
      if (Date.now() > deadline) throw new Error(`no ${what} arrived at the shop`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/**
 * `Vipps::verify_webhook`: Authorization (or X-Vipps-Authorization) must equal the HMAC the shop computes over
 * `POST\n{REQUEST_URI}\n{x-ms-date};{HTTP_HOST};{base64 sha256 of the raw body}` with the secret, and x-ms-date must be
 * within 300 s of the shop's clock (`Vipps::isDateValid`).
 */
export function verifyWebhook(call: ReceivedCall, secret: string): boolean {
  const expectedAuth = String(call.headers.authorization ?? call.headers['x-vipps-authorization'] ?? '');
  const expectedDate = String(call.headers['x-ms-date'] ?? '');
  const headerTime = Date.parse(expectedDate);
  if (Number.isNaN(headerTime) || Math.abs(Date.now() - headerTime) > 300_000) return false;
  const hashedPayload = createHash('sha256').update(call.rawPost).digest('base64');
  const toSign = `POST\n${call.requestUri}\n${expectedDate};${call.headers.host};${hashedPayload}`;
  const signature = createHmac('sha256', secret).update(toSign).digest('base64');
  return expectedAuth === `HMAC-SHA256 SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature=${signature}`;
}
