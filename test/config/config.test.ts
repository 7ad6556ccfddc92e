/** @database-free (code and files only, no database: CI runs this file in one pass, jest.config.js) */
import { ConfigError, loadConfig } from '../../src/config.js';

const SECRET = 's'.repeat(32);

describe('loadConfig', () => {
  test('defaults: the test environment on port 8080 with PGlite under ./data and jobs on', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8080,
      env: 'test',
      databaseUrl: undefined,
      dataDir: './data',
      publicUrl: 'http://localhost:8080',
      tokenLifetimeSeconds: 3600,
      jobIntervalMs: 250,
      runJobs: true,
      flushIntervalMs: 2000,
      logRequests: true,
    });
    expect(config.tokenSecret.length).toBeGreaterThanOrEqual(32);
  });

  test('the PSP make-payment callback waits 15 s for an answer unless PAYGRAPH_PSP_CALLBACK_TIMEOUT_MS says otherwise', () => {
    expect(loadConfig({}).pspCallbackTimeoutMs).toBe(15_000);
    expect(loadConfig({ PAYGRAPH_PSP_CALLBACK_TIMEOUT_MS: '2500' }).pspCallbackTimeoutMs).toBe(2_500);
    for (const value of ['0', '-1', '1.5', 'soon'])
      expect(() => loadConfig({ PAYGRAPH_PSP_CALLBACK_TIMEOUT_MS: value })).toThrow(/PAYGRAPH_PSP_CALLBACK_TIMEOUT_MS/);
  });

  test('a shipping callback has 8 s to answer unless PAYGRAPH_SHIPPING_CALLBACK_TIMEOUT_MS says otherwise', () => {
    expect(loadConfig({}).shippingCallbackTimeoutMs).toBe(8_000);
    expect(loadConfig({ PAYGRAPH_SHIPPING_CALLBACK_TIMEOUT_MS: '500' }).shippingCallbackTimeoutMs).toBe(500);
    expect(() => loadConfig({ PAYGRAPH_SHIPPING_CALLBACK_TIMEOUT_MS: 'soon' })).toThrow(/PAYGRAPH_SHIPPING_CALLBACK_TIMEOUT_MS/);
  });

  test('an empty PORT is unset, not port 0', () => {
    expect(loadConfig({ PORT: '' }).port).toBe(8080);
    expect(loadConfig({ PORT: '  ' }).port).toBe(8080);
  });

  test('every empty variable is unset', () => {
    expect(loadConfig({ PAYGRAPH_ENV: '', PUBLIC_URL: '', DATABASE_URL: '', DATA_DIR: '', PAYGRAPH_JOB_INTERVAL_MS: '' })).toMatchObject({
      env: 'test',
      publicUrl: 'http://localhost:8080',
      databaseUrl: undefined,
      dataDir: './data',
      jobIntervalMs: 250,
    });
  });

  test('PORT and PUBLIC_URL are taken as given; a trailing slash is dropped', () => {
    expect(loadConfig({ PORT: '9090', PUBLIC_URL: 'https://pay.example/' })).toMatchObject({
      port: 9090,
      publicUrl: 'https://pay.example',
    });
  });

  test.each(['abc', '-1', '65536', '80.5', '0x50'])('PORT=%s is refused', (port) => {
    expect(() => loadConfig({ PORT: port })).toThrow(ConfigError);
  });

  test.each(['prod', 'TEST', 'staging'])('PAYGRAPH_ENV=%s is refused', (env) => {
    expect(() => loadConfig({ PAYGRAPH_ENV: env })).toThrow(/PAYGRAPH_ENV must be "test" or "production"/);
  });

  test('production without PAYGRAPH_TOKEN_SECRET, or with a short one, is refused', () => {
    expect(() => loadConfig({ PAYGRAPH_ENV: 'production' })).toThrow(/PAYGRAPH_TOKEN_SECRET/);
    expect(() => loadConfig({ PAYGRAPH_ENV: 'production', PAYGRAPH_TOKEN_SECRET: '' })).toThrow(/PAYGRAPH_TOKEN_SECRET/);
    expect(() => loadConfig({ PAYGRAPH_ENV: 'production', PAYGRAPH_TOKEN_SECRET: 's'.repeat(31) })).toThrow(/PAYGRAPH_TOKEN_SECRET/);
  });

  test('production with a secret: 24-hour tokens and the secret as given', () => {
    const production = { PAYGRAPH_ENV: 'production', DATABASE_URL: 'postgres://db/paygraph', PUBLIC_URL: 'https://pay.example' };
    expect(loadConfig({ ...production, PAYGRAPH_TOKEN_SECRET: SECRET })).toMatchObject({
      env: 'production',
      tokenSecret: SECRET,
      tokenLifetimeSeconds: 86400,
    });
  });

  test('PAYGRAPH_TOKEN_LIFETIME_SECONDS overrides either default; anything but a positive integer is refused', () => {
    expect(loadConfig({ PAYGRAPH_TOKEN_LIFETIME_SECONDS: '600' }).tokenLifetimeSeconds).toBe(600);
    const production = { PAYGRAPH_ENV: 'production', DATABASE_URL: 'postgres://db/paygraph', PUBLIC_URL: 'https://pay.example' };
    expect(loadConfig({ ...production, PAYGRAPH_TOKEN_SECRET: SECRET, PAYGRAPH_TOKEN_LIFETIME_SECONDS: '3600' }).tokenLifetimeSeconds).toBe(
      3600,
    );
    for (const bad of ['0', '-5', '1.5', 'an hour']) {
      expect(() => loadConfig({ PAYGRAPH_TOKEN_LIFETIME_SECONDS: bad })).toThrow(/PAYGRAPH_TOKEN_LIFETIME_SECONDS/);
    }
  });

  test('a PUBLIC_URL that is not an absolute http(s) URL is refused', () => {
    expect(() => loadConfig({ PUBLIC_URL: 'pay.example' })).toThrow(/PUBLIC_URL/);
  });
});
