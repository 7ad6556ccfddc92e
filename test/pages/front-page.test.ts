import { startProductionApp, startTestApp, type TestApp } from '../support/test-app.js';

/** issue 22: the service's address leads somewhere: the dashboard, the IDE (test environment) and every API document. */
let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const linksOf = (html: string) => [...html.matchAll(/<a href="([^"]+)">/g)].map((m) => m[1]!);

test('the front page links the dashboard, the IDE and every OpenAPI document, and each link answers', async () => {
  const res = await fetch(`${t.baseUrl}/`, { headers: { accept: 'text/html' } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  const links = linksOf(await res.text());
  expect(links).toEqual(expect.arrayContaining(['/dashboard', '/graphql', '/epayment/v1/openapi.json', '/webhooks/v1/openapi.json']));
  const documents = links.filter((l) => l.endsWith('/openapi.json'));
  expect(documents.length).toBe(t.app.router.declaredInterfaces.length);
  for (const link of links) {
    const answer = await fetch(t.baseUrl + link, { headers: { accept: link.endsWith('.json') ? 'application/json' : 'text/html' } });
    expect([link, answer.status]).toEqual([link, 200]);
    if (link.endsWith('.json')) expect(((await answer.json()) as { openapi: string }).openapi).toBe('3.0.3');
  }
});

test('in production the front page names no IDE', async () => {
  const production = await startProductionApp();
  try {
    const links = linksOf(await (await fetch(`${production.baseUrl}/`)).text());
    expect(links).toContain('/dashboard');
    expect(links).not.toContain('/graphql');
  } finally {
    await production.close();
  }
});
