import type { PrincipalClient, HttpResult } from '../support/principal-client.js';

/** The four system headers the management interface requires (spec 3). */
export const SYSTEM_HEADERS = {
  'Svc-System-Name': 'jest',
  'Svc-System-Version': '1.0.0',
  'Svc-System-Plugin-Name': 'paygraph-tests',
  'Svc-System-Plugin-Version': '1.0.0',
};

export function mgmt(
  client: PrincipalClient,
  method: string,
  path: string,
  body?: unknown,
  extra: Record<string, string> = {},
): Promise<HttpResult> {
  return client.request(method, `/management/v1${path}`, body, { ...SYSTEM_HEADERS, ...extra });
}

/** A PNG of the given size (valid, decodable), in base64. */
export async function png(width: number, height: number): Promise<string> {
  const { pngImage } = await import('../support/images.js');
  return pngImage(width, height).toString('base64');
}

export const PRICE_PACKAGE_PA_NETT = '8a11afb7-c223-48ed-8ca6-4722b97261aa';
export const PRICE_PACKAGE_I_KASSA = '5c2e7a90-3d41-4b8e-9f6a-1b0c2d3e4f50';

export function orderBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    businessIdentifier: { scheme: 'business:NO:ORG', id: '920000029' },
    salesUnitName: 'Nytt Firma Online',
    settlementAccountNumber: '12345678903',
    pricePackageId: PRICE_PACKAGE_PA_NETT,
    productType: 'SVC_PA_NETT',
    productUseCase: 'Website',
    annualTurnover: 1_000_000,
    intendedPurpose: 'Selling coffee beans',
    website: { url: 'https://nyttfirma.no', termsUrl: 'https://nyttfirma.no/terms' },
    complianceData: { donation: { acceptsDonation: false } },
    ...overrides,
  };
}
