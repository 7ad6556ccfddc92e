import { parseArgs } from 'node:util';
import {
  assertTestEnvironment,
  NotATestEnvironment,
  TestEnvironmentClient,
  TriggerFailure,
  unreachable,
} from './test-environment-client.js';
import { scenarios, type TriggerResult } from './trigger-scenarios.js';

/** Where the command writes: the process's streams, or a test's. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
}

const processOutput: Output = { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) };

export const DEFAULT_URL = 'http://localhost:8080';

/**
 * `npm run paygraph -- trigger <scenario>`: runs one scenario end to end against a test environment over HTTP (it
 * opens no database) with the test environment's fixed credentials, and prints the reference it made and the events
 * it caused, as the graph tells them. Exit codes as the other commands: 0 done, 1 refused or failed, 2 usage.
 */
export async function runTrigger(
  args: readonly string[],
  output: Output = processOutput,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  let values: { scenario?: string; msn?: string; url?: string; list?: boolean; json?: boolean; help?: boolean };
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: [...args],
      allowPositionals: true,
      strict: true,
      options: {
        scenario: { type: 'string' },
        msn: { type: 'string' },
        url: { type: 'string' },
        list: { type: 'boolean' },
        json: { type: 'boolean' },
        help: { type: 'boolean' },
      },
    }));
  } catch (error) {
    return usage(output, error instanceof Error ? error.message : String(error));
  }
  if (values.help) {
    output.out(help());
    return 0;
  }
  if (values.list) {
    output.out(list());
    return 0;
  }
  const names = [...positionals, ...(values.scenario ? [values.scenario] : [])];
  if (names.length !== 1) return usage(output, 'name one scenario (`npm run paygraph -- trigger --list` lists them)');
  const scenario = scenarios.find((s) => s.name === names[0]);
  if (!scenario) return usage(output, `unknown scenario "${names[0]}"; \`npm run paygraph -- trigger --list\` lists them`);
  // PAYGRAPH_URL as listen reads it: one variable points both commands, in one shell, at a service elsewhere.
  const url = (values.url ?? env.PAYGRAPH_URL ?? DEFAULT_URL).replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]+$/.test(url)) return usage(output, `--url must be the service's base URL (http or https), got "${url}"`);
  if (values.msn !== undefined && !/^\d{4,10}$/.test(values.msn))
    return usage(output, `--msn must be a Merchant-Serial-Number, got "${values.msn}"`);

  const client = new TestEnvironmentClient(url);
  try {
    await assertTestEnvironment(client);
    const result = await scenario.run(client, values.msn ?? scenario.defaultMsn);
    output.out(values.json ? `${JSON.stringify(result)}\n` : text(result));
    return 0;
  } catch (error) {
    if (error instanceof NotATestEnvironment) return refuse(output, `${url} is not a Paygraph test environment: ${error.message}`);
    if (error instanceof TriggerFailure) return refuse(output, `${scenario.name} failed: ${error.message}`);
    if (unreachable(error)) {
      const cause = (error as { cause?: { message?: unknown } }).cause?.message;
      return refuse(output, `cannot reach ${url}: ${typeof cause === 'string' ? cause : error.message}`);
    }
    throw error;
  }
}

function text(result: TriggerResult): string {
  const width = Math.max(0, ...result.events.map((e) => e.name.length));
  return [
    `scenario: ${result.scenario}`,
    `msn: ${result.msn}`,
    `reference: ${result.reference}`,
    'events:',
    ...result.events.map((e) => `  ${e.eventId.padStart(8)}  ${e.name.padEnd(width)}  ${e.occurredAt}`),
    '',
  ].join('\n');
}

/** What each scenario does and the events it causes, in order: what a run prints and what the tests check. */
export function list(): string {
  const width = Math.max(...scenarios.map((s) => s.name.length));
  return [
    'Scenarios (npm run paygraph -- trigger <scenario> [--msn <msn>] [--url <url>] [--json]):',
    '',
    ...scenarios.flatMap((s) => [
      `  ${s.name.padEnd(width)}  ${s.summary} (default unit ${s.defaultMsn})`,
      `  ${''.padEnd(width)}  events: ${s.events.join(', ')}`,
    ]),
    '',
  ].join('\n');
}

function help(): string {
  return [
    'Usage: npm run paygraph -- trigger <scenario> | --scenario <name> [--msn <msn>] [--url <url>] [--json]',
    '       npm run paygraph -- trigger --list',
    '',
    'Runs a scenario end to end against a Paygraph test environment, over HTTP only, with the fixed credentials of',
    'its test environment, and prints the reference it made and the events it caused. A service that is not a test',
    'environment is refused.',
    '',
    `  --url <url>   the service (default PAYGRAPH_URL, else ${DEFAULT_URL})`,
    "  --msn <msn>   the sales unit (default: the scenario's; merchant A's and B's units with their own client, others",
    '                through the partner, the PSP scenario as the PSP)',
    '  --list        what each scenario does and the events it causes',
    '  --json        print the result as one JSON object',
    '',
  ].join('\n');
}

function usage(output: Output, message: string): number {
  output.err(`paygraph trigger: ${message}\n`);
  return 2;
}

function refuse(output: Output, message: string): number {
  output.err(`paygraph trigger: ${message}\n`);
  return 1;
}
