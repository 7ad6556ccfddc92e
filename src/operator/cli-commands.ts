import type { Config } from '../config.js';
import type { CaptureType } from '../merchants/sales-unit.entity.js';
import { AppError } from '../platform/errors/app-error.js';
import type { ClientOwner } from './api-clients.service.js';
import type { RetentionRule } from '../platform/lifecycle/retention.js';
import { readFile } from 'node:fs/promises';
import type { OperatorCall } from './onboarding.service.js';

/**
 * The operator services load when a command runs, not with this list: the command line's help and usage errors
 * answer without the service's modules (cli.ts), which take seconds of CPU to load.
 */
const onboarding = () => import('./onboarding.service.js');
const apiClients = () => import('./api-clients.service.js');
const dataLifecycle = () => import('./data-lifecycle.service.js');
const registryImport = () => import('./registry-import.action.js');
const trustedDocuments = () => import('./trusted-documents.service.js');

type Options = Record<string, string | boolean | undefined>;

/** One command of `npm run paygraph -- <command>`: its options, and what it does through the operator services. */
export interface CliCommand {
  name: string;
  summary: string;
  options: Record<string, { type: 'string' | 'boolean'; description: string; required?: boolean }>;
  run(call: OperatorCall, options: Options, config: Config, service: CliService): Promise<Record<string, unknown>>;
}

/** What a command may need of the service beyond the operator's call: every module's retention rules. */
export interface CliService {
  retention: readonly RetentionRule[];
}

const str = (options: Options, name: string): string => {
  const value = options[name];
  if (typeof value !== 'string' || value === '')
    throw new AppError('OPERATOR_INVALID', `--${name} is required`, [{ name, reason: 'Required' }]);
  return value;
};
const opt = (options: Options, name: string): string | undefined =>
  typeof options[name] === 'string' ? (options[name] as string) : undefined;

export const cliCommands: readonly CliCommand[] = [
  {
    name: 'create-partner',
    summary: 'Create a partner (an integrator that acts for the sales units connected to it)',
    options: {
      name: { type: 'string', description: 'the partner company name', required: true },
      id: { type: 'string', description: 'its partner id (default: a new number)' },
    },
    run: async (call, o) => {
      const partner = await (await onboarding()).createPartner(call, { name: str(o, 'name'), id: opt(o, 'id') });
      return { partnerId: partner.id, name: partner.name, status: partner.status };
    },
  },
  {
    name: 'deactivate-partner',
    summary: 'Deactivate a partner',
    options: { 'partner-id': { type: 'string', description: 'the partner', required: true } },
    run: async (call, o) => {
      await (await onboarding()).deactivatePartner(call, { partnerId: str(o, 'partner-id') });
      return { partnerId: str(o, 'partner-id'), status: 'DEACTIVATED' };
    },
  },
  {
    name: 'create-merchant',
    summary: 'Create a merchant for an active main entity of the business registry',
    options: {
      'org-number': { type: 'string', description: 'the organisation number (9 digits)', required: true },
      name: { type: 'string', description: 'its name (default: the registry name)' },
    },
    run: async (call, o) => {
      const merchant = await (await onboarding()).createMerchant(call, { orgNumber: str(o, 'org-number'), name: opt(o, 'name') });
      return { merchantId: merchant.id, name: merchant.name, orgNumber: merchant.orgNumber };
    },
  },
  {
    name: 'deactivate-merchant',
    summary: 'Deactivate a merchant and its sales units (they take no new payments)',
    options: { 'merchant-id': { type: 'string', description: 'the merchant', required: true } },
    run: async (call, o) => {
      await (await onboarding()).deactivateMerchant(call, { merchantId: str(o, 'merchant-id') });
      return { merchantId: str(o, 'merchant-id'), status: 'DEACTIVATED' };
    },
  },
  {
    name: 'create-sales-unit',
    summary: 'Create a sales unit of a merchant, with its capture type and flags',
    options: {
      'merchant-id': { type: 'string', description: 'the merchant', required: true },
      name: { type: 'string', description: 'the sales unit name shown to users', required: true },
      msn: { type: 'string', description: 'its merchant serial number (default: a new 6-digit number)' },
      'capture-type': { type: 'string', description: 'ReserveCapture (default), DirectCapture or NotApplicable' },
      'long-living-payments': { type: 'boolean', description: 'may create payments with expiresAt' },
      'skip-landing-page': { type: 'boolean', description: 'may skip the landing page' },
      recurring: { type: 'boolean', description: 'may take recurring payments' },
    },
    run: async (call, o) => {
      const unit = await (
        await onboarding()
      ).createSalesUnit(call, {
        merchantId: str(o, 'merchant-id'),
        name: str(o, 'name'),
        msn: opt(o, 'msn'),
        captureType: opt(o, 'capture-type') as CaptureType | undefined,
        longLivingPaymentsAllowed: o['long-living-payments'] === true,
        skipLandingPageAllowed: o['skip-landing-page'] === true,
        recurringAllowed: o.recurring === true,
      });
      return { msn: unit.msn, merchantId: unit.merchantId, name: unit.name, captureType: unit.captureType };
    },
  },
  {
    name: 'set-express',
    summary: 'Turn Express in ePayment (a create with shipping) on or off for a sales unit; every unit starts with it on',
    options: {
      msn: { type: 'string', description: 'the sales unit', required: true },
      off: { type: 'boolean', description: 'turn it off (without: on)' },
    },
    run: async (call, o) => {
      await (await onboarding()).setExpressEnabled(call, { msn: str(o, 'msn'), enabled: o.off !== true });
      return { msn: str(o, 'msn'), expressEnabled: o.off !== true };
    },
  },
  {
    name: 'create-psp',
    summary: 'Create a payment service provider',
    options: { name: { type: 'string', description: 'the PSP company name', required: true } },
    run: async (call, o) => {
      const psp = await (await onboarding()).createPsp(call, { name: str(o, 'name') });
      return { pspId: psp.id, name: psp.name };
    },
  },
  {
    name: 'connect-sales-unit',
    summary: 'Connect a sales unit to a partner, which may then act for it',
    options: {
      'partner-id': { type: 'string', description: 'the partner', required: true },
      msn: { type: 'string', description: 'the sales unit', required: true },
    },
    run: async (call, o) => {
      await (await onboarding()).connectSalesUnit(call, { partnerId: str(o, 'partner-id'), msn: str(o, 'msn') });
      return { partnerId: str(o, 'partner-id'), msn: str(o, 'msn'), connected: true };
    },
  },
  {
    name: 'record-consent',
    summary: "Record a merchant's consent to share its data with a partner its sales units are connected to",
    options: consentOptions(),
    run: async (call, o) => consent(call, o, true),
  },
  {
    name: 'withdraw-consent',
    summary: "Withdraw a merchant's consent to share its data with a partner",
    options: consentOptions(),
    run: async (call, o) => consent(call, o, false),
  },
  {
    name: 'create-client',
    summary: 'Create an API client for a merchant, a partner or a PSP; its secret and subscription key are shown only now',
    options: {
      'merchant-id': { type: 'string', description: 'for this merchant' },
      'partner-id': { type: 'string', description: 'or for this partner' },
      'psp-id': { type: 'string', description: 'or for this PSP' },
      'client-id': { type: 'string', description: 'its client_id (default: a new one)' },
    },
    run: async (call, o) => {
      const owners = (['merchant', 'partner', 'psp'] as const).flatMap((kind): ClientOwner[] => {
        const id = opt(o, `${kind}-id`);
        return id ? [{ kind, id }] : [];
      });
      if (owners.length !== 1) {
        throw new AppError('OPERATOR_INVALID', 'Name exactly one of --merchant-id, --partner-id, --psp-id', [
          { name: 'owner', reason: 'Exactly one' },
        ]);
      }
      const issued = await (await apiClients()).createApiClient(call, owners[0]!, opt(o, 'client-id'));
      return { ...issued };
    },
  },
  {
    name: 'create-operator-client',
    summary:
      "Create an operator API client (the graph's operator mutations, nothing else); its secret and subscription key are shown only now",
    options: { 'client-id': { type: 'string', description: 'its client_id (default: a new one)' } },
    run: async (call, o) => {
      const issued = await (await apiClients()).createApiClient(call, { kind: 'operator' }, opt(o, 'client-id'));
      return { clientId: issued.clientId, clientSecret: issued.clientSecret, subscriptionKey: issued.subscriptionKey, kind: issued.kind };
    },
  },
  {
    name: 'create-wallet-client',
    summary:
      "Create a wallet app's API client (acts for the app's users: their pending payments, approve, reject; nothing else); its secret and subscription key are shown only now",
    options: { 'client-id': { type: 'string', description: 'its client_id (default: a new one)' } },
    run: async (call, o) => {
      const issued = await (await apiClients()).createApiClient(call, { kind: 'wallet' }, opt(o, 'client-id'));
      return { clientId: issued.clientId, clientSecret: issued.clientSecret, subscriptionKey: issued.subscriptionKey, kind: issued.kind };
    },
  },
  {
    name: 'rotate-secret',
    summary: 'Give a client a new secret; the old one works too until the overlap ends (PAYGRAPH_SECRET_OVERLAP_MS) or retire-secret',
    options: {
      'client-id': { type: 'string', description: 'the client', required: true },
      'overlap-ms': { type: 'string', description: 'how long the old secret keeps working (default: PAYGRAPH_SECRET_OVERLAP_MS)' },
    },
    run: async (call, o, config) => {
      const overlap = opt(o, 'overlap-ms');
      const overlapMs = overlap === undefined ? config.secretOverlapMs : Number(overlap);
      if (!Number.isInteger(overlapMs) || overlapMs < 0) {
        throw new AppError('OPERATOR_INVALID', '--overlap-ms must be a whole number of milliseconds', [
          { name: 'overlap-ms', reason: 'Not a number' },
        ]);
      }
      const rotated = await (await apiClients()).rotateSecret(call, { clientId: str(o, 'client-id'), overlapMs });
      return {
        clientId: rotated.clientId,
        clientSecret: rotated.clientSecret,
        previousSecretRetiresAt: rotated.previousSecretRetiresAt.toISOString(),
      };
    },
  },
  {
    name: 'retire-secret',
    summary: "End a rotation's overlap now: only the newest secret works",
    options: { 'client-id': { type: 'string', description: 'the client', required: true } },
    run: async (call, o) => {
      await (await apiClients()).retireSecret(call, { clientId: str(o, 'client-id') });
      return { clientId: str(o, 'client-id'), previousSecret: 'retired' };
    },
  },
  {
    name: 'register-documents',
    summary:
      "Register a manifest's GraphQL documents as trusted documents (graphql-codegen's persisted-documents.json or Apollo's persisted query manifest)",
    options: {
      file: { type: 'string', description: 'the manifest (JSON)', required: true },
    },
    run: async (call, o) => {
      const file = str(o, 'file');
      let manifest: string;
      try {
        manifest = await readFile(file, 'utf8');
      } catch (error) {
        throw new AppError('OPERATOR_INVALID', `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, [
          { name: 'file', reason: 'Not readable' },
        ]);
      }
      const result = await (await trustedDocuments()).registerDocuments(call, manifest);
      return { ...result };
    },
  },
  {
    name: 'import-registry',
    summary: 'Import a bulk file of Enhetsregisteret (main or sub entities, JSON or CSV, gzipped or not)',
    options: {
      file: { type: 'string', description: 'the downloaded file (enheter_alle.json.gz, underenheter_alle.csv.gz, ...)', required: true },
      kind: { type: 'string', description: 'main or sub (default: sub when the file name says underenheter)' },
      format: { type: 'string', description: 'json or csv (default: from the file name)' },
      full: { type: 'boolean', description: 'the file is the whole register of its kind: imported entries it lacks become deleted' },
    },
    run: async (call, o) => {
      const kind = opt(o, 'kind');
      const format = opt(o, 'format');
      if (kind !== undefined && kind !== 'main' && kind !== 'sub')
        throw new AppError('OPERATOR_INVALID', '--kind must be main or sub', [{ name: 'kind', reason: 'main or sub' }]);
      if (format !== undefined && format !== 'json' && format !== 'csv')
        throw new AppError('OPERATOR_INVALID', '--format must be json or csv', [{ name: 'format', reason: 'json or csv' }]);
      const result = await (await registryImport()).importRegistryFile(call, { file: str(o, 'file'), kind, format, full: o.full === true });
      return { ...result };
    },
  },
  {
    name: 'prune',
    summary: 'Remove what is past its retention (README, Data lifecycle), or with --dry-run say what would go',
    options: {
      'dry-run': { type: 'boolean', description: 'count what a prune would remove now, and remove nothing' },
      kinds: { type: 'string', description: 'only these kinds, comma-separated (default: every kind)' },
    },
    run: async (call, o, config, service) => {
      const dryRun = o['dry-run'] === true;
      const kinds = opt(o, 'kinds')
        ?.split(',')
        .map((k) => k.trim());
      const results = await (
        await dataLifecycle()
      ).pruneNow({ em: call.em, config, rules: service.retention, now: call.now }, { dryRun, ...(kinds ? { kinds } : {}) });
      return {
        dryRun,
        ...Object.fromEntries(
          results.map((r) => [r.kind, `${dryRun ? 'would remove' : 'removed'} ${r.rows} (${r.method}, before ${r.cutoff.toISOString()})`]),
        ),
      };
    },
  },
];

function consentOptions(): CliCommand['options'] {
  return {
    'merchant-id': { type: 'string', description: 'the merchant', required: true },
    'partner-id': { type: 'string', description: 'the partner', required: true },
  };
}

async function consent(call: OperatorCall, o: Options, given: boolean): Promise<Record<string, unknown>> {
  const msns = await (
    await onboarding()
  ).setMerchantConsent(call, { merchantId: str(o, 'merchant-id'), partnerId: str(o, 'partner-id'), consent: given });
  return { merchantId: str(o, 'merchant-id'), partnerId: str(o, 'partner-id'), merchantConsent: given, salesUnits: msns };
}
