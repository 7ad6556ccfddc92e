import type { HttpResult } from './principal-client.js';

/**
 * A refusal in the problem body of the interfaces that answer with `invalidParams` (FACTS §4): the status, a JSON
 * body with `type`, `title`, `detail` and `instance`, and, when `name` is given, that field among `invalidParams`.
 */
export function expectInvalidParamsProblem(res: HttpResult, status: number, name?: string): void {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toEqual(
    expect.objectContaining({
      type: expect.any(String),
      title: expect.any(String),
      detail: expect.any(String),
      instance: expect.any(String),
    }),
  );
  if (name) expect(res.body.invalidParams.map((p: { name: string }) => p.name)).toContain(name);
}
