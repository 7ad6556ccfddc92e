import { userInfo } from 'node:os';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig, type Config } from './config.js';
import { AppError } from './platform/errors/app-error.js';
import { CONTROL_CHARACTER_REASON, hasControlCharacter } from './platform/validation/control-characters.js';
import { startupRefusal } from './startup-failure.js';
import { cliCommands, type CliCommand } from './operator/cli-commands.js';

/**
 * The operator's command line, `npm run paygraph -- <command> [options] [--json]`: bootstrapping a fresh database
 * (its migrations run first) with the same operator services as the operator mutations. Output is `key: value`
 * lines, or one JSON object with `--json`. Exit codes: 0 done, 1 refused (one line on stderr), 2 usage.
 */
export async function runCli(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(help());
    return name === undefined ? 2 : 0;
  }
  // Network clients of a Paygraph: they open no database, so they need neither the config nor the modules.
  if (name === 'trigger') return (await import('./operator/trigger/trigger.command.js')).runTrigger(rest, undefined, env);
  if (name === 'listen') return (await import('./operator/listen/listen.command.js')).runListen(rest, { env });
  const command = cliCommands.find((c) => c.name === name);
  if (!command) return usage(`unknown command "${name}"; \`npm run paygraph -- help\` lists them`);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(command, rest);
  } catch (error) {
    return usage(error instanceof Error ? error.message : String(error));
  }
  if (parsed.help) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  // As every HTTP face refuses them where input enters (control-characters.ts), before anything runs.
  const withControl = Object.entries(parsed).filter(([, value]) => typeof value === 'string' && hasControlCharacter(value));
  if (withControl.length > 0) {
    return refuse(`OPERATOR_INVALID: ${withControl.map(([key]) => `--${key}: ${CONTROL_CHARACTER_REASON}`).join('; ')}`);
  }
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    return refuse(startupRefusal(error) ?? String(error));
  }
  // Loaded only for a command that runs: help and usage errors answer without the service's modules.
  const { modules } = await import('./modules.js');
  const { forkEm, openDatabase } = await import('./platform/db/orm.js');
  const orm = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    entities: modules.flatMap((m) => m.entities ?? []),
    migrations: modules.flatMap((m) => m.migrations ?? []),
  }).catch((error: unknown) => {
    const refusal = startupRefusal(error);
    if (refusal === undefined) throw error;
    return refusal;
  });
  if (typeof orm === 'string') return refuse(orm);
  try {
    const actor = typeof parsed.actor === 'string' ? parsed.actor : (env.PAYGRAPH_OPERATOR ?? `cli:${userInfo().username}`);
    const result = await command.run({ em: forkEm(orm), actor, now: new Date() }, parsed, config, {
      retention: modules.flatMap((m) => m.retention ?? []),
    });
    process.stdout.write(parsed.json ? `${JSON.stringify(result)}\n` : text(result));
    return 0;
  } catch (error) {
    if (error instanceof AppError) return refuse(`${error.code}: ${error.message}`);
    const code = (error as { code?: unknown }).code;
    // A file to import that cannot be read is the operator's to fix, not a fault of the service.
    if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR') return refuse(`${String(code)}: ${(error as Error).message}`);
    if (error instanceof SyntaxError) return refuse(`the file is not valid JSON: ${error.message}`);
    throw error;
  } finally {
    await orm.close(true);
  }
}

function parse(command: CliCommand, args: readonly string[]) {
  const { values } = parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      ...Object.fromEntries(Object.entries(command.options).map(([key, option]) => [key, { type: option.type }])),
      json: { type: 'boolean' },
      actor: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const options = values as Record<string, string | boolean | undefined>;
  for (const [key, option] of Object.entries(command.options)) {
    if (option.required && options[key] === undefined && !options.help) throw new Error(`${command.name}: --${key} is required`);
  }
  return options;
}

function help(): string {
  const width = Math.max(...cliCommands.map((c) => c.name.length));
  return [
    'Usage: npm run paygraph -- <command> [options] [--json] [--actor <who>]',
    '',
    'Back-office commands on the database named by DATABASE_URL (its migrations run first). Every command prints',
    'JSON with --json; every action is recorded in the outbox with its actor (--actor, else PAYGRAPH_OPERATOR, else',
    'cli:<user>). `npm run paygraph -- <command> --help` lists its options.',
    '',
    'Commands:',
    ...cliCommands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    `  ${'trigger'.padEnd(width)}  Run a scenario against a test environment over HTTP (no database): \`trigger --list\``,
    `  ${'listen'.padEnd(width)}  Forward a sales unit's events, signed as webhooks, to a local URL (no database): \`listen --help\``,
    `  ${'help'.padEnd(width)}  This list`,
    '',
  ].join('\n');
}

function commandHelp(command: CliCommand): string {
  const entries = Object.entries(command.options);
  const width = Math.max(6, ...entries.map(([key]) => key.length + 2));
  return [
    `Usage: npm run paygraph -- ${command.name} [options] [--json]`,
    '',
    command.summary,
    '',
    ...entries.map(([key, o]) => `  ${`--${key}`.padEnd(width)}  ${o.description}${o.required ? ' (required)' : ''}`),
    `  ${'--json'.padEnd(width)}  print the result as one JSON object`,
    '',
  ].join('\n');
}

function text(result: Record<string, unknown>): string {
  return Object.entries(result)
    .map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(', ') : String(value)}\n`)
    .join('');
}

function usage(message: string): number {
  process.stderr.write(`paygraph: ${message}\n`);
  return 2;
}

function refuse(message: string): number {
  process.stderr.write(`paygraph: ${message}\n`);
  return 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await runCli(process.argv.slice(2));
}
