/** @database-free (code and files only, no database: CI runs this file in one pass, jest.config.js) */
import { createHash } from 'node:crypto';
import { signWebhookRequest } from '../../src/platform/delivery/webhook-signature.js';

// The published test vector (FACTS §2, request-authentication.md), reproduced bit for bit.
const SECRET = 'A0+AeKBRG2KRGvnNwJpQlb6IJFk48CKXCIcrLoHncVJKDILsQSxS6NWCccwWm6r6FhGKhiHTBsG2wo/xU6FY/A==';
const URL_ = new URL('https://webhook.site/e2cee29b-012e-4f1d-8ef4-e95fd74a7a63');
const BODY = '{"some-unique-content":"ee6e441b-cc4a-46f8-895d-a5af79bcc233/hello-world"}';
const DATE = new Date('Thu, 30 Mar 2023 08:38:32 GMT');

test('reproduces the published test vector', () => {
  const headers = signWebhookRequest(URL_, BODY, SECRET, DATE);
  expect(headers).toEqual({
    'x-ms-date': 'Thu, 30 Mar 2023 08:38:32 GMT',
    'x-ms-content-sha256': 'lNlsp1XA03N34HrQsVzPgJKtC+r7l/RBF4V3JQUWMj4=',
    host: 'webhook.site',
    authorization: 'HMAC-SHA256 SignedHeaders=x-ms-date;host;x-ms-content-sha256&Signature=agAiSyogQbDHpeucoNwYz+yAr5nJ+v+zasdkSbqzv+U=',
  });
});

test('the hash covers the raw body bytes and the signature covers path, query and port', () => {
  const withQuery = signWebhookRequest(new URL('https://webhook.site:8443/e2cee29b?x=1'), BODY, SECRET, DATE);
  expect(withQuery.host).toBe('webhook.site:8443');
  expect(withQuery['x-ms-content-sha256']).toBe(createHash('sha256').update(BODY).digest('base64'));
  const plain = signWebhookRequest(URL_, BODY, SECRET, DATE);
  expect(withQuery.authorization).not.toBe(plain.authorization);
  expect(signWebhookRequest(URL_, BODY, `${SECRET}x`, DATE).authorization).not.toBe(plain.authorization);
});
