import type { Services } from '../platform/context.js';
import type { PageRoute } from '../platform/rest/page-route.js';
import { escapeHtml } from '../pages/kit/html.js';
import { pageSecurityHeaders } from '../pages/kit/security-headers.js';
import { CONTRACT_LINK_PATH, openContractLink } from './contract-link.js';
import { contractPdf } from './contract-pdf.js';

/**
 * The contract link a browser opens (`GET …/contracts` answers it): the PDF, with no headers needed, while the link
 * is fresh and its caller may still read the merchant's data. The link carries a credential, so the answer goes to
 * no cache and its address to no other site.
 */
export function contractPages(services: Services): PageRoute[] {
  return [
    {
      method: 'GET',
      pattern: CONTRACT_LINK_PATH,
      run: async (request) => {
        const opened = await openContractLink(services, request.query.get('token') ?? '', request.traceId);
        const headers = { ...pageSecurityHeaders(request), 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' };
        if (!opened.ok) return { status: opened.status, headers, body: refusalPage(opened.message) };
        return {
          status: 200,
          headers: {
            ...headers,
            'content-type': 'application/pdf',
            'content-disposition': `inline; filename="agreement-${opened.merchant.orgno}.pdf"`,
          },
          body: contractPdf(opened.merchant),
        };
      },
    },
  ];
}

function refusalPage(message: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Contract</title></head>
<body><main><h1>Contract</h1><p role="alert">${escapeHtml(message)}</p></main></body></html>`;
}
