import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jest } from '@jest/globals';
import pg from 'pg';
import { runCli } from '../../src/cli.js';
import { MerchantClient } from '../support/merchant-client.js';
import { OperatorClient } from '../support/operator-client.js';
import { pendingNodes, tokenOf, WalletClient } from '../support/wallet-client.js';
import { buildService, ServiceProcess, type BuiltService } from '../support/service-process.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../support/test-database.js';

/**
 * Issue 21 point 1 and 2, through the operator's command line on a fresh PostgreSQL database in production mode:
 * import the business registry, onboard a partner, a merchant and its sales unit and a merchant client, take a
 * token with the printed credentials and create a payment, rotate the secret. PostgreSQL only: production refuses
 * the embedded database, and PGlite cannot be shared by the command line and the service (two processes).
 *
 * The commands run through the command line's own entry (`runCli`) in this process, with its output captured: a
 * process per command loaded every module of the service again (about 2 s of CPU each, some forty of them). The
 * built command line runs as a process of its own where the process is the subject: its help, its usage errors and
 * exit codes, and the first command on the fresh database (which migrates it).
 */
const describeOnPostgres = onPostgres ? describe : describe.skip;
const SAMPLES = join(process.cwd(), 'samples/enhetsregisteret');

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  json: Record<string, unknown>;
}

describeOnPostgres('the operator command line', () => {
  let built: BuiltService;
  let database: TestDatabase;
  let service: ServiceProcess | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    built = await buildService();
    database = await createTestDatabase();
    env = {
      PATH: process.env.PATH ?? '',
      PAYGRAPH_ENV: 'production',
      DATABASE_URL: database.databaseUrl!,
      PUBLIC_URL: 'https://pay.example',
      PAYGRAPH_TOKEN_SECRET: 'onboarding-test-token-secret-of-40-bytes!',
      PAYGRAPH_LOG_REQUESTS: 'false',
    };
  }, 300_000);
  afterAll(async () => {
    await service?.kill();
    await database?.drop();
    await built?.remove();
  });

  /** The command line's own entry, in this process, with its output captured. */
  async function cli(...args: string[]): Promise<CliRun> {
    const run = { code: 0, stdout: '', stderr: '' };
    const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((run.stdout += String(chunk)), true));
    const err = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((run.stderr += String(chunk)), true));
    try {
      run.code = await runCli(args, { ...env });
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    return { ...run, json: jsonOf(run.stdout) };
  }

  function jsonOf(stdout: string): Record<string, unknown> {
    try {
      return JSON.parse(stdout) as Record<string, unknown>;
    } catch {
      return {}; // not --json
    }
  }

  /** The built command line as an operator runs it: a process of its own. */
  function cliProcess(...args: string[]): Promise<CliRun> {
    return new Promise((resolve) => {
      execFile(process.execPath, [join(built.dir, 'src/cli.js'), ...args], { cwd: built.dir, env }, (error, stdout, stderr) => {
        const code = error ? Number((error as { code?: unknown }).code ?? 1) : 0;
        resolve({ code, stdout, stderr, json: jsonOf(stdout) });
      });
    });
  }

  async function ok(...args: string[]): Promise<Record<string, unknown>> {
    return succeeded(args, await cli(...args, '--json', '--actor', 'ops@example.com'));
  }

  function succeeded(args: string[], run: CliRun): Record<string, unknown> {
    if (run.code !== 0) throw new Error(`${args.join(' ')} exited ${run.code}: ${run.stderr}`);
    return run.json;
  }

  async function sql<T>(text: string, values: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: database.databaseUrl });
    await client.connect();
    try {
      return (await client.query(text, values)).rows as T[];
    } finally {
      await client.end();
    }
  }

  test('help lists every command; an unknown command or a missing option is a usage error', async () => {
    const help = await cliProcess('help');
    expect(help.code).toBe(0);
    for (const command of [
      'create-partner',
      'deactivate-partner',
      'create-merchant',
      'deactivate-merchant',
      'create-sales-unit',
      'create-psp',
      'connect-sales-unit',
      'record-consent',
      'withdraw-consent',
      'create-client',
      'create-operator-client',
      'create-wallet-client',
      'rotate-secret',
      'retire-secret',
      'import-registry',
      'prune',
    ]) {
      expect(help.stdout).toContain(`  ${command} `);
    }
    expect((await cliProcess('create-merchant', '--help')).stdout).toContain('--org-number');
    const unknown = await cliProcess('make-money');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^paygraph: unknown command "make-money"/);
    expect((await cliProcess('create-merchant')).stderr).toMatch(/^paygraph: create-merchant: --org-number is required\n$/);
  });

  test('from an empty database to the first payment, then a secret rotation with an overlap', async () => {
    // The registry from Enhetsregisteret's bulk format: main entities (JSON), then sub entities (CSV). The first
    // command, on the fresh database, is the built command line's own process.
    const first = ['import-registry', '--file', join(SAMPLES, 'enheter_sample.json')];
    expect(succeeded(first, await cliProcess(...first, '--json', '--actor', 'ops@example.com'))).toMatchObject({
      kind: 'main',
      imported: 6,
      skipped: 0,
    });
    expect(await ok('import-registry', '--file', join(SAMPLES, 'underenheter_sample.csv'))).toMatchObject({ kind: 'sub', imported: 2 });
    // Idempotent: the same file again changes nothing.
    const before = await sql(`select org_number, name, kind, status, parent_org_number from business_registry_entry order by 1`);
    await ok('import-registry', '--file', join(SAMPLES, 'enheter_sample.json'));
    expect(await sql(`select org_number, name, kind, status, parent_org_number from business_registry_entry order by 1`)).toEqual(before);
    expect(before).toEqual(
      expect.arrayContaining([
        { org_number: '931000004', name: 'EKSEMPELBUTIKKEN AS', kind: 'main', status: 'active', parent_org_number: null },
        { org_number: '931000039', name: 'KONKURSRAMMET AS', kind: 'main', status: 'inactive', parent_org_number: null },
        { org_number: '931000055', name: 'SLETTET AS', kind: 'main', status: 'deleted', parent_org_number: null },
        { org_number: '931000063', name: 'EKSEMPELBUTIKKEN AS AVD. BERGEN', kind: 'sub', status: 'active', parent_org_number: '931000004' },
        {
          org_number: '931000071',
          name: 'PRØVEKAFEEN AS, "GAMLE" AVDELING',
          kind: 'sub',
          status: 'deleted',
          parent_org_number: '931000012',
        },
      ]),
    );

    const partner = await ok('create-partner', '--name', 'Integrasjon AS');
    // Checked against the registry: a sub entity, a bankrupt organisation and a deleted one are refused in one line.
    for (const [orgNumber, message] of [
      ['931000063', /sub entity/],
      ['931000039', /bankrupt or being wound up/],
      ['931000055', /deleted from the business registry/],
    ] as const) {
      const refused = await cli('create-merchant', '--org-number', orgNumber);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(message);
      expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    const merchant = await ok('create-merchant', '--org-number', '931000004');
    expect(merchant).toMatchObject({ name: 'EKSEMPELBUTIKKEN AS', orgNumber: '931000004' });
    const unit = await ok(
      'create-sales-unit',
      '--merchant-id',
      String(merchant.merchantId),
      '--name',
      'Eksempelbutikken nett',
      '--capture-type',
      'ReserveCapture',
    );
    expect(String(unit.msn)).toMatch(/^\d{6}$/);
    await ok('connect-sales-unit', '--partner-id', String(partner.partnerId), '--msn', String(unit.msn));
    expect(
      await ok('record-consent', '--merchant-id', String(merchant.merchantId), '--partner-id', String(partner.partnerId)),
    ).toMatchObject({
      merchantConsent: true,
      salesUnits: [unit.msn],
    });
    const client = await ok('create-client', '--merchant-id', String(merchant.merchantId));
    expect(client).toMatchObject({ kind: 'merchant', ownerId: merchant.merchantId });

    service = new ServiceProcess(built, { ...env, PORT: '0' });
    const baseUrl = `http://127.0.0.1:${await service.listening}`;
    const credentials = {
      msn: String(unit.msn),
      clientId: String(client.clientId),
      clientSecret: String(client.clientSecret),
      subscriptionKey: String(client.subscriptionKey),
    };
    const merchantApi = new MerchantClient(baseUrl, credentials);
    const created = await merchantApi.createPayment({ reference: 'first-production-payment' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ reference: 'first-production-payment' });

    // set-express: the unit's Express creates (with shipping) are refused with 5020 while it is off, taken once on again.
    const express = (reference: string) =>
      merchantApi.createPayment({
        reference,
        paymentMethod: { type: 'WALLET' },
        profile: { scope: 'name email phoneNumber address' },
        shipping: {
          fixedOptions: [
            {
              brand: 'OTHER',
              type: 'OTHER',
              isDefault: true,
              options: [{ id: 'flat_rate:1', name: 'Flat rate', amount: { currency: 'NOK', value: 4_900 } }],
            },
          ],
        },
      });
    expect(await ok('set-express', '--msn', credentials.msn, '--off')).toEqual({ msn: credentials.msn, expressEnabled: false });
    const refused = await express('express-while-off');
    expect(refused.status).toBe(400);
    expect(refused.body.extraDetails).toContainEqual({ name: 'ErrorCode', reason: '5020' });
    expect(await ok('set-express', '--msn', credentials.msn)).toEqual({ msn: credentials.msn, expressEnabled: true });
    expect((await express('express-on-again')).status).toBe(201);

    const tokenStatus = (secret: string) =>
      new MerchantClient(baseUrl, { ...credentials, clientSecret: secret })
        .raw('POST', '/accesstoken/get', undefined, {
          client_id: credentials.clientId,
          client_secret: secret,
          'Ocp-Apim-Subscription-Key': credentials.subscriptionKey,
        })
        .then((r) => r.status);

    // Rotation: both secrets work during the overlap; after the old one is retired only the new one does.
    const rotated = await ok('rotate-secret', '--client-id', credentials.clientId);
    const newSecret = String(rotated.clientSecret);
    expect(newSecret).not.toBe(credentials.clientSecret);
    expect(Date.parse(String(rotated.previousSecretRetiresAt))).toBeGreaterThan(Date.now());
    expect(await tokenStatus(credentials.clientSecret)).toBe(200);
    expect(await tokenStatus(newSecret)).toBe(200);
    const paidWithNew = await new MerchantClient(baseUrl, { ...credentials, clientSecret: newSecret }).createPayment({
      reference: 'after-rotation',
    });
    expect(paidWithNew.status).toBe(201);
    await ok('retire-secret', '--client-id', credentials.clientId);
    expect(await tokenStatus(credentials.clientSecret)).toBe(401);
    expect(await tokenStatus(newSecret)).toBe(200);
    // An overlap that has ended works as a retirement: a rotation with none leaves only the newest secret.
    const again = await ok('rotate-secret', '--client-id', credentials.clientId, '--overlap-ms', '0');
    expect(await tokenStatus(newSecret)).toBe(401);
    expect(await tokenStatus(String(again.clientSecret))).toBe(200);

    // Every action is an outbox event naming who did what, and none carries a secret or key.
    const events = await sql<{ name: string; payload: Record<string, unknown>; msn: string }>(
      `select name, payload, msn from domain_event where stream_type = 'operator-action' order by id`,
    );
    expect(events.map((e) => e.name)).toEqual([
      'operator.business-registry.imported.v1',
      'operator.business-registry.imported.v1',
      'operator.business-registry.imported.v1',
      'operator.partner.created.v1',
      'operator.merchant.created.v1',
      'operator.sales-unit.created.v1',
      'operator.sales-unit.connected.v1',
      'operator.merchant-consent.recorded.v1',
      'operator.api-client.created.v1',
      'operator.sales-unit.express-disabled.v1',
      'operator.sales-unit.express-enabled.v1',
      'operator.api-client.secret-rotated.v1',
      'operator.api-client.secret-retired.v1',
      'operator.api-client.secret-rotated.v1',
    ]);
    for (const event of events) expect(event.payload).toMatchObject({ actor: 'ops@example.com', at: expect.any(String) });
    const everything = JSON.stringify(events);
    for (const secret of [credentials.clientSecret, credentials.subscriptionKey, newSecret, String(again.clientSecret)]) {
      expect(everything).not.toContain(secret);
    }
  }, 150_000);

  test('create-operator-client: a tool takes a token with it and onboards through the operator mutations, nothing else', async () => {
    const issued = await ok('create-operator-client');
    expect(issued).toMatchObject({ kind: 'operator', clientId: expect.stringMatching(/^operator-/) });
    service ??= new ServiceProcess(built, { ...env, PORT: '0' });
    const baseUrl = `http://127.0.0.1:${await service.listening}`;
    const operator = new OperatorClient(baseUrl, {
      clientId: String(issued.clientId),
      clientSecret: String(issued.clientSecret),
      subscriptionKey: String(issued.subscriptionKey),
    });
    const res = await operator.graphql(
      'mutation { createPsp(input: { name: "Verktøy-PSP AS" }) { psp { pspId name } userErrors { code } } }',
    );
    expect(res.body).toEqual({ data: { createPsp: { psp: { pspId: expect.any(String), name: 'Verktøy-PSP AS' }, userErrors: [] } } });
    const [event] = await sql<{ payload: Record<string, unknown> }>(
      `select payload from domain_event where stream_type = 'operator-action' and name = 'operator.psp.created.v1'`,
    );
    expect(event!.payload).toMatchObject({ actor: issued.clientId });
    expect((await operator.request('GET', '/epayment/v1/payments/any', undefined, { 'Merchant-Serial-Number': '123456' })).status).toBe(
      403,
    );
    expect((await operator.graphql('{ viewer { kind } }')).status).toBe(403);
  }, 120_000);

  // Issue 35: production payers approve in a wallet app, whose client the operator onboards like any other.
  test('create-wallet-client: a production payment opens the platform’s landing page; the wallet app approves; the merchant captures', async () => {
    // First, so the database is migrated when this test runs alone; the shop is the first test's merchant, if it ran.
    const issued = await ok('create-wallet-client');
    expect(issued).toMatchObject({ kind: 'wallet', clientId: expect.stringMatching(/^wallet-/) });
    const [known] = await sql<{ merchant_id: string; msn: string; name: string }>(
      `select su.merchant_id, su.msn, su.name from sales_unit su join merchant m on m.id = su.merchant_id where m.org_number = '931000004'`,
    );
    if (!known) await ok('import-registry', '--file', join(SAMPLES, 'enheter_sample.json'));
    const merchantId = known?.merchant_id ?? String((await ok('create-merchant', '--org-number', '931000004')).merchantId);
    const unit = known ?? (await ok('create-sales-unit', '--merchant-id', merchantId, '--name', 'Eksempelbutikken nett'));
    const client = await ok('create-client', '--merchant-id', merchantId);
    service ??= new ServiceProcess(built, { ...env, PORT: '0' });
    const baseUrl = `http://127.0.0.1:${await service.listening}`;
    const credentials = (c: Record<string, unknown>) => ({
      clientId: String(c.clientId),
      clientSecret: String(c.clientSecret),
      subscriptionKey: String(c.subscriptionKey),
    });
    const shop = new MerchantClient(baseUrl, { msn: String(unit.msn), ...credentials(client) });
    const wallet = new WalletClient(baseUrl, credentials(issued));

    const created = await shop.createPayment({ reference: 'wallet-app-payment', customer: { phoneNumber: '4790000003' } });
    expect(created.status).toBe(201);
    // PUBLIC_URL names the platform's address; the page itself is asked of this instance.
    const landing = new URL(created.body.redirectUrl);
    expect(landing.origin).toBe('https://pay.example');
    const page = await (await fetch(`${baseUrl}${landing.pathname}${landing.search}`)).text();
    expect(page).toContain('Approve in the app');
    expect(page).toContain('Eksempelbutikken nett');
    expect(page).not.toMatch(/test wallet/i);

    const pending = await wallet.pending('4790000003');
    expect(pendingNodes(pending).map((p) => p.token)).toEqual([tokenOf(created.body.redirectUrl)]);
    const approved = await wallet.approve({ phoneNumber: '4790000003', token: tokenOf(created.body.redirectUrl) });
    expect(approved.body.data.walletApprovePayment).toMatchObject({ payment: { state: 'AUTHORIZED' }, userErrors: [] });
    expect((await shop.modify('wallet-app-payment', 'capture', 10_000)).status).toBe(200);
    expect((await shop.getPayment('wallet-app-payment')).body.aggregate.capturedAmount.value).toBe(10_000);
    // The wallet app's client is no merchant: the ePayment API refuses it.
    expect(
      (await wallet.request('GET', '/epayment/v1/payments/wallet-app-payment', undefined, { 'Merchant-Serial-Number': String(unit.msn) }))
        .status,
    ).toBe(403);
  }, 120_000);

  test('a later full import marks what it no longer lists deleted, and that organisation can no longer become a merchant', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'registry-'));
    try {
      const all = JSON.parse(await readFile(join(SAMPLES, 'enheter_sample.json'), 'utf8')) as { organisasjonsnummer: string }[];
      const later = join(dir, 'enheter_alle.json');
      await writeFile(later, JSON.stringify(all.filter((e) => e.organisasjonsnummer !== '931000020')));
      expect(await ok('import-registry', '--file', later, '--full')).toMatchObject({ imported: 5, markedDeleted: 1 });
      expect(await sql(`select status from business_registry_entry where org_number = '931000020'`)).toEqual([{ status: 'deleted' }]);
      // Sub entities are another file: a full import of main entities leaves them as they were.
      expect(await sql(`select status from business_registry_entry where org_number = '931000063'`)).toEqual([{ status: 'active' }]);
      expect((await cli('create-merchant', '--org-number', '931000020')).stderr).toMatch(/deleted from the business registry/);
      const missing = await cli('import-registry', '--file', join(dir, 'nothing.json'));
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/^paygraph: ENOENT/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);

  // Issue 33, N10.
  test('an organisation number is one merchant’s; no option may carry a control character', async () => {
    await ok('import-registry', '--file', join(SAMPLES, 'enheter_sample.json'));
    const merchant = await ok('create-merchant', '--org-number', '931000012');
    const again = await cli('create-merchant', '--org-number', '931000012', '--name', 'Prøvekafeen igjen');
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(
      `paygraph: OPERATOR_CONFLICT: Merchant ${String(merchant.merchantId)} has organisation number 931000012 already (one merchant per organisation)\n`,
    );
    expect(await sql(`select count(*)::int as count from merchant where org_number = '931000012'`)).toEqual([{ count: 1 }]);

    const partners = await sql(`select count(*)::int as count from partner`);
    for (const args of [
      ['create-partner', '--name', 'Bell\u0007 AS'],
      ['create-psp', '--name', 'Esc\u001b PSP'],
      ['create-sales-unit', '--merchant-id', String(merchant.merchantId), '--name', 'Kafe\u0001'],
    ]) {
      const refused = await cli(...args);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^paygraph: OPERATOR_INVALID: --name: Must not contain control characters/);
    }
    expect(await sql(`select count(*)::int as count from partner`)).toEqual(partners);
    expect(await sql(`select count(*)::int as count from sales_unit where merchant_id = $1`, [merchant.merchantId])).toEqual([
      { count: 0 },
    ]);
  }, 120_000);

  test('the test environment keeps its fixed registry entries through a full import', async () => {
    const testDatabase = await createTestDatabase({ migrated: true });
    const testEnv = { ...env, PAYGRAPH_ENV: 'test', DATABASE_URL: testDatabase.databaseUrl!, PUBLIC_URL: 'http://127.0.0.1:1' };
    const seeding = new ServiceProcess(built, testEnv);
    try {
      await seeding.listening;
      await seeding.kill();
      const saved = env;
      env = testEnv;
      try {
        expect(await ok('import-registry', '--file', join(SAMPLES, 'enheter_sample.json'), '--full')).toMatchObject({ markedDeleted: 0 });
        expect(await ok('create-merchant', '--org-number', '920000029')).toMatchObject({ name: 'Nytt Firma AS' });
      } finally {
        env = saved;
      }
    } finally {
      await seeding.kill();
      await testDatabase.drop();
    }
  }, 120_000);

  test('prune --dry-run says what a prune would remove, and prune removes it and says so (issue 36)', async () => {
    // The command line migrates first, so it works on a database no instance has started on; nothing is old yet.
    expect((await ok('prune', '--dry-run'))['idempotency-records']).toMatch(/^would remove 0 /);
    // A key record older than the 7-day window, as a year of traffic leaves them.
    await sql(
      `insert into idempotency_record (client_id, msn, operation, target, idempotency_key, request_digest, outcome, created_at)
       values ('cli-prune', '', 'payment.capture', 'ref', 'old-key', repeat('0', 64), '{}', now() - interval '8 days')`,
    );
    const dry = await ok('prune', '--dry-run');
    expect(dry.dryRun).toBe(true);
    expect(dry['idempotency-records']).toMatch(/^would remove 1 \(batches, before /);
    expect(dry['delivery-attempts']).toMatch(/^would remove 0 \(partitions, before /);
    expect(await sql('select 1 from idempotency_record where client_id = $1', ['cli-prune'])).toHaveLength(1);
    const pruned = await ok('prune', '--kinds', 'idempotency-records');
    expect(pruned).toEqual({ dryRun: false, 'idempotency-records': expect.stringMatching(/^removed 1 \(batches, before /) });
    expect(await sql('select 1 from idempotency_record where client_id = $1', ['cli-prune'])).toHaveLength(0);
    const unknown = await cli('prune', '--kinds', 'payments');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^paygraph: OPERATOR_INVALID: No kind of data named payments/);
  });
});
