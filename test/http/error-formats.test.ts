/** @database-free (code and files only, no database: CI runs this file in one pass, jest.config.js) */
import { AppError } from '../../src/platform/errors/app-error.js';
import { checkoutProblem } from '../../src/checkout/checkout-problem.js';
import { epaymentProblem } from '../../src/platform/rest/error-formats/epayment-problem.js';
import type { ErrorFormat } from '../../src/platform/rest/error-formats/error-format.js';
import { invalidParamsProblem } from '../../src/platform/rest/error-formats/invalid-params-problem.js';
import { ledgerError } from '../../src/ledgers/ledger-error.js';
import { managementProblem } from '../../src/management/management-problem.js';
import { pspErrorArray } from '../../src/psp/psp-error-array.js';
import { signupProblem } from '../../src/psp-signup/signup-problem.js';
import { userinfoProblem } from '../../src/user-profiles/userinfo-problem.js';
import type { HttpRequest } from '../../src/platform/rest/http-types.js';
// The codes used below are declared by these files; the app imports them through the modules.
import '../../src/platform/errors/platform.errors.js';
import '../../src/payments/payment.errors.js';

/**
 * Each interface's error body, checked against its public definition (read by eye from
 * ../shared/reference/openapi/, cited per case): field names, types and which are there.
 */

const request: HttpRequest = {
  method: 'POST',
  path: '/some/v1/thing',
  query: new URLSearchParams(),
  headers: {},
  params: {},
  rawBody: Buffer.alloc(0),
  traceId: '3cff3564-4a14-4481-8dbb-431087753eed',
};
const validation = AppError.validation([
  { name: 'amount.value', reason: 'Must be at least 100' },
  { name: 'amount.value', reason: 'Must be an integer' },
  { name: 'reference', reason: 'Required' },
]);
const domain = new AppError('CAPTURE_AMOUNT_TOO_HIGH', 'Capture amount too high');
const unauthorized = new AppError('UNAUTHORIZED', 'A bearer access token is required');

const render = (format: ErrorFormat, error: AppError) => format.render(error, request);

test('ePayment and webhooks (epayment-v1.yaml Problem, webhooks-v1.yaml ProblemDetails): problem+json, extraDetails[{name, reason}], the public code as ErrorCode', () => {
  const response = render(epaymentProblem, domain);
  expect(response.headers).toEqual({ 'content-type': 'application/problem+json' });
  expect(response.body).toEqual({
    type: 'https://httpstatuses.io/400',
    title: 'Capture amount too high',
    status: 400,
    detail: 'Capture amount too high',
    instance: '/some/v1/thing',
    traceId: request.traceId,
    extraDetails: [{ name: 'ErrorCode', reason: '6090' }],
  });
});

test('order management and QR (order-management-v2.yaml ErrorResponse, qr-v1.yaml QrErrorResponse): {type, title, detail, instance, invalidParams}', () => {
  const response = render(invalidParamsProblem, validation);
  expect(response.status).toBe(400);
  expect(response.headers?.['content-type']).toMatch(/^application\/json/);
  expect(response.body).toEqual({
    type: 'https://httpstatuses.io/400',
    title: 'Bad Request',
    detail: validation.message,
    instance: request.traceId,
    invalidParams: [
      { name: 'amount.value', reason: 'Must be at least 100' },
      { name: 'amount.value', reason: 'Must be an integer' },
      { name: 'reference', reason: 'Required' },
    ],
  });
  expect(Object.keys(response.body as object)).not.toContain('status');
});

test('PSP (psp-v3.yaml ErrorDetails): an array of {errorCode (string), errorMessage, contextId}, one per failing field', () => {
  const bad = render(pspErrorArray, validation);
  expect(bad.status).toBe(400);
  expect(bad.body).toEqual([
    { errorCode: '51', errorMessage: 'amount.value: Must be at least 100', contextId: request.traceId },
    { errorCode: '51', errorMessage: 'amount.value: Must be an integer', contextId: request.traceId },
    { errorCode: '51', errorMessage: 'reference: Required', contextId: request.traceId },
  ]);
  expect(render(pspErrorArray, unauthorized).body).toEqual([
    { errorCode: '401', errorMessage: 'A bearer access token is required', contextId: request.traceId },
  ]);
});

test('PSP signup (psp-signup-v1.yaml Error): {type, title, status (number), detail, instance}, nothing else', () => {
  const response = render(signupProblem, validation);
  expect(response.headers).toEqual({ 'content-type': 'application/json;charset=UTF-8' });
  expect(response.body).toEqual({
    type: 'https://httpstatuses.io/400',
    title: 'Bad Request',
    status: 400,
    detail: validation.message,
    instance: '/some/v1/thing',
  });
});

test('management (management-v1.yaml Problem, ExtraDetails): extraDetails[{key, value}], the public code as CustomErrorCode', () => {
  expect(render(managementProblem, validation).body).toEqual({
    type: 'https://httpstatuses.io/400',
    title: 'Bad Request',
    status: 400,
    detail: validation.message,
    instance: '/some/v1/thing',
    traceId: request.traceId,
    extraDetails: [
      { key: 'amount.value', value: 'Must be at least 100' },
      { key: 'amount.value', value: 'Must be an integer' },
      { key: 'reference', value: 'Required' },
    ],
  });
  expect((render(managementProblem, domain).body as { extraDetails: unknown[] }).extraDetails).toEqual([
    { key: 'CustomErrorCode', value: '6090' },
  ]);
});

test('checkout (checkout-v3.yaml CheckoutProblemDetails): required errorCode and errors {field: [messages]}', () => {
  const response = render(checkoutProblem, validation);
  expect(response.body).toEqual({
    type: 'https://httpstatuses.io/400',
    title: 'Bad Request',
    status: 400,
    detail: validation.message,
    instance: '/some/v1/thing',
    errorCode: 'Validation-00001',
    errors: { 'amount.value': ['Must be at least 100', 'Must be an integer'], reference: ['Required'] },
  });
  expect(render(checkoutProblem, unauthorized).body).toEqual(expect.objectContaining({ errorCode: 'UNAUTHORIZED', errors: {} }));
});

test('user profile (userinfo.yaml UserinfoError): status is a string; failing fields in extraInfo', () => {
  const response = render(userinfoProblem, validation);
  expect(response.status).toBe(400);
  expect(response.body).toEqual({
    type: 'https://httpstatuses.io/400',
    title: 'Bad Request',
    status: '400',
    detail: validation.message,
    instance: request.traceId,
    extraInfo: { 'amount.value': { reason: 'Must be at least 100; Must be an integer' }, reference: { reason: 'Required' } },
  });
});

test('settlement ledger (report-v1-settlement-ledger.yaml): {errorCode (number), errorMessage, contextId}; a 401 is {code, message}', () => {
  expect(render(ledgerError, validation).body).toEqual({ errorCode: 10002, errorMessage: validation.message, contextId: request.traceId });
  expect(render(ledgerError, new AppError('INTERNAL')).body).toEqual({
    errorCode: 10001,
    errorMessage: 'Internal Server Error',
    contextId: request.traceId,
  });
  expect(render(ledgerError, unauthorized)).toEqual({
    status: 401,
    headers: { 'content-type': 'application/json; charset=utf-8' },
    body: { code: 'Unauthorized', message: 'A bearer access token is required' },
  });
});

test.each([
  epaymentProblem,
  invalidParamsProblem,
  pspErrorArray,
  signupProblem,
  managementProblem,
  checkoutProblem,
  userinfoProblem,
  ledgerError,
])('$name: never leaks an internal message and keeps the status', (format) => {
  const response = render(format, new AppError('INTERNAL'));
  expect(response.status).toBe(500);
  expect(JSON.stringify(response.body)).not.toMatch(/stack|Error:/);
  expect(format.jsonSchema).toEqual(expect.any(Object));
});
