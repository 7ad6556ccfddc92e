import { jest } from '@jest/globals';
import { runCli } from '../../src/cli.js';
import { list } from '../../src/operator/trigger/trigger.command.js';
import { scenarios } from '../../src/operator/trigger/trigger-scenarios.js';
import { useTestApp } from '../support/app-fixture.js';
import { MERCHANT_B, MerchantClient } from '../support/merchant-client.js';
import { startProductionApp } from '../support/test-app.js';

/**
 * issue 37 item 2: `npm run paygraph -- trigger <scenario>` against a live test app, over HTTP only. Each scenario's
 * printed events are the graph's events of its reference, and the ones its `--list` line promises.
 */
const t = useTestApp();

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** The command line's own entry, with its output captured. */
function trigger(...args: string[]): Promise<Run> {
  return triggerIn({}, ...args);
}

/** The same, in an environment of the test's choosing. */
async function triggerIn(env: NodeJS.ProcessEnv, ...args: string[]): Promise<Run> {
  const run: Run = { code: 0, stdout: '', stderr: '' };
  const out = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    run.stdout += String(chunk);
    return true;
  });
  const err = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    run.stderr += String(chunk);
    return true;
  });
  try {
    run.code = await runCli(['trigger', ...args], env);
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return run;
}

const STREAM_EVENTS = `query { events(first: 100) { edges { node { eventId name reference payload } } } }`;

/** The unit's events the graph relates to a reference (a payment's, a session's, a callback QR's id), oldest first. */
async function graphEvents(client: MerchantClient, reference: string): Promise<{ eventId: string; name: string }[]> {
  const res = await client.graphql(STREAM_EVENTS);
  expect(res.body.errors).toBeUndefined();
  return res.body.data.events.edges
    .map((e: any) => e.node)
    .filter((e: any) => e.reference === reference || JSON.parse(e.payload).merchantQrId === reference)
    .map((e: any) => ({ eventId: e.eventId, name: e.name }))
    .reverse();
}

describe('trigger <scenario>', () => {
  test.each(scenarios.filter((s) => s.name !== 'psp.payment').map((s) => [s.name, s] as const))(
    '%s prints the events the graph has for its reference, as --list says',
    async (name, scenario) => {
      const run = await trigger(name, '--url', t.baseUrl, '--json');
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const result = JSON.parse(run.stdout);
      expect(result).toMatchObject({ scenario: name, msn: '123456', reference: expect.any(String) });
      const printed = result.events.map((e: { eventId: string; name: string }) => ({ eventId: e.eventId, name: e.name }));
      expect(printed).toEqual(await graphEvents(t.merchant, result.reference));
      expect(printed.map((e: { name: string }) => e.name)).toEqual(scenario.events);
      expect(list()).toContain(`events: ${scenario.events.join(', ')}`);
      if (name === 'express.shipping') {
        // Played on the landing page: the first address and the 49 NOK option, reserved with the amount.
        const res = await t.merchant.graphql(
          'query($r: String!) { payment(reference: $r) { amount { value } shippingDetails { shippingOptionId address { addressLine1 } } } }',
          { r: result.reference },
        );
        expect(res.body.data.payment).toEqual({
          amount: { value: 14_900 },
          shippingDetails: { shippingOptionId: 'flat_rate:1', address: { addressLine1: 'Storgata 1' } },
        });
      }
    },
  );

  test("psp.payment prints the PSP payment's events as the PSP reads them in the graph, as --list says", async () => {
    const run = await trigger('--scenario', 'psp.payment', '--url', t.baseUrl, '--json');
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ scenario: 'psp.payment', msn: '112233' });
    const res = await t.psp.graphql(
      'query($id: String!) { pspPayment(pspTransactionId: $id) { state events { edges { node { eventId name } } } } }',
      { id: result.reference },
      { 'Merchant-Serial-Number': '112233' },
    );
    expect(res.body.data.pspPayment.state).toBe('RESERVED');
    const inGraph = res.body.data.pspPayment.events.edges.map((e: any) => e.node);
    expect(result.events.map((e: { eventId: string; name: string }) => ({ eventId: e.eventId, name: e.name }))).toEqual(inGraph);
    const psp = scenarios.find((s) => s.name === 'psp.payment')!;
    expect(inGraph.map((e: { name: string }) => e.name)).toEqual(psp.events);
    expect(list()).toContain(`events: ${psp.events.join(', ')}`);
  });

  test('--msn runs the scenario in another sales unit, and prints text without --json', async () => {
    const run = await trigger('payment.captured', '--msn', MERCHANT_B.msn, '--url', t.baseUrl);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const reference = /^reference: (\S+)$/m.exec(run.stdout)![1]!;
    expect(run.stdout).toMatch(/^scenario: payment\.captured\nmsn: 654321\n/);
    const inB = await graphEvents(t.otherMerchant, reference);
    expect(inB.map((e) => e.name)).toEqual([
      'epayments.payment.created.v1',
      'epayments.payment.authorized.v1',
      'epayments.payment.captured.v1',
    ]);
    for (const event of inB) expect(run.stdout).toMatch(new RegExp(`^ +${event.eventId}  ${event.name.replace(/\./g, '\\.')} +\\S+$`, 'm'));
    expect(await graphEvents(t.merchant, reference)).toEqual([]);
  });

  test('--list says what each scenario does, Express included', async () => {
    const run = await trigger('--list');
    expect(run.code).toBe(0);
    for (const scenario of scenarios) expect(run.stdout).toContain(scenario.name);
    expect(run.stdout).toMatch(
      /^  express\.shipping +an Express payment .* with a 49 NOK and a free shipping option, approved on its landing page/m,
    );
    for (const amount of [151, 182, 183, 184, 186, 187, 197, 201, 202]) expect(run.stdout).toContain(`payment.failure.${amount}`);
    for (const amount of [123, 124]) expect(run.stdout).toContain(`refund.failure.${amount}`);
    const help = await trigger('--help');
    expect(help).toMatchObject({
      code: 0,
      stdout: expect.stringContaining('--url <url>   the service (default PAYGRAPH_URL, else http://localhost:8080)'),
    });
  });

  test('usage errors exit 2; a service it cannot reach exits 1', async () => {
    expect(await trigger()).toMatchObject({ code: 2, stderr: expect.stringContaining('name one scenario') });
    expect(await trigger('nonsense')).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown scenario "nonsense"') });
    expect(await trigger('payment.captured', '--url', 'ftp://x')).toMatchObject({ code: 2 });
    expect(await trigger('payment.captured', '--url', 'http://127.0.0.1:9')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('cannot reach http://127.0.0.1:9'),
    });
    // Without --url, PAYGRAPH_URL names the service, as for listen (the README's trigger walk-through relies on it).
    expect(await triggerIn({ PAYGRAPH_URL: 'http://127.0.0.1:9' }, 'payment.captured')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('cannot reach http://127.0.0.1:9'),
    });
  });
});

test('a production service is refused, even where the demo credentials exist, and nothing runs there', async () => {
  const production = await startProductionApp();
  try {
    const run = await trigger('payment.authorized', '--url', production.baseUrl);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${production.baseUrl} is not a Paygraph test environment: it is a production environment`);
    const merchant = new MerchantClient(production.baseUrl);
    const res = await merchant.graphql('{ serviceEnvironment payments(first: 1) { edges { node { reference } } } }');
    expect(res.body.data).toEqual({ serviceEnvironment: 'PRODUCTION', payments: { edges: [] } });
  } finally {
    await production.close();
  }
});
