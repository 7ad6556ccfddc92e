import type { ApiClientOwnerKind, CaptureType, OperatorErrorCode, Resolvers } from '../src/generated/graphql.js';
import { createApiClient, retireSecret, rotateSecret, type OwnedClientKind } from '../src/operator/api-clients.service.js';
import {
  connectSalesUnit,
  createMerchant,
  createPartner,
  createPsp,
  createSalesUnit,
  deactivateMerchant,
  deactivatePartner,
  setExpressEnabled,
  setMerchantConsent,
  type OperatorCall,
} from '../src/operator/onboarding.service.js';
import type { RequestContext, Services } from '../src/platform/context.js';
import { pruneHistory, pruneNow, type PruneCall } from '../src/operator/data-lifecycle.service.js';
import { registerDocuments } from '../src/operator/trusted-documents.service.js';
import type { PruneResult } from '../src/platform/lifecycle/retention.js';
import { AppError } from '../src/platform/errors/app-error.js';
import { forbiddenFieldsError } from '../src/platform/graph/principal-fields.js';
import { userErrorCodes, withUserErrors } from '../src/platform/graph/user-errors.js';

const OPERATOR_ERRORS = userErrorCodes<OperatorErrorCode>({
  OPERATOR_NOT_FOUND: true,
  OPERATOR_CONFLICT: true,
  OPERATOR_INVALID: true,
  ORG_NUMBER_MALFORMED: true,
  ORG_NUMBER_NOT_FOUND: true,
  ORG_NUMBER_SUB_ENTITY: true,
  ORG_NUMBER_NOT_ACTIVE: true,
});

const OWNER_KINDS: Record<ApiClientOwnerKind, OwnedClientKind> = {
  MERCHANT: 'merchant',
  PARTNER: 'partner',
  PSP: 'psp',
};
const OWNER_KIND_NAMES = { merchant: 'MERCHANT', partner: 'PARTNER', psp: 'PSP' } as const;

/**
 * The operator's client acts: its id is the actor of the outbox event. The request front refuses these fields to
 * every other principal before any resolver runs; this check also covers a root fragment that hides one of them.
 * The wall clock, not a test clock: a secret's overlap is operations time (authenticate.ts).
 */
function operatorCall(request: RequestContext, field: string): OperatorCall {
  if (request.principal.kind !== 'operator') throw forbiddenFieldsError([field]);
  return { em: request.em, actor: request.principal.clientId, now: new Date() };
}

const run = <T extends object>(action: () => Promise<T>) => withUserErrors(OPERATOR_ERRORS, action);

/** The prune as the operator runs it: by the service's clock (a test moves it), with every module's rules. */
function pruneCall(request: RequestContext, services: Services, field: string): PruneCall {
  operatorCall(request, field);
  return { em: request.em, config: services.config, rules: services.retention ?? [], now: services.clock.now() };
}

const pruneResult = (result: PruneResult) => ({
  ...result,
  method: result.method === 'partitions' ? ('PARTITIONS' as const) : ('BATCHES' as const),
  cutoff: result.cutoff.toISOString(),
});

export const operatorResolvers: Resolvers = {
  PruneDataPayload: {
    recentRuns: async (_, { first }, { request }) =>
      (await pruneHistory(request.em, first ?? 20)).map((r) => ({ ...r, cutoff: r.cutoff.toISOString(), ranAt: r.ranAt.toISOString() })),
  },
  Mutation: {
    pruneData: (_, { input }, { request, services }) =>
      run(async () => {
        const call = pruneCall(request, services, 'pruneData');
        const results = await pruneNow(call, { dryRun: input.dryRun === true, kinds: input.kinds ?? undefined });
        return { results: results.map(pruneResult) };
      }),
    registerTrustedDocuments: (_, { input }, { request }) =>
      run(async () => registerDocuments(operatorCall(request, 'registerTrustedDocuments'), input.manifest)),
    createPartner: (_, { input }, { request }) =>
      run(async () => {
        const partner = await createPartner(operatorCall(request, 'createPartner'), { name: input.name, id: input.partnerId ?? undefined });
        return { partner: { partnerId: partner.id, name: partner.name, status: partner.status } };
      }),
    deactivatePartner: (_, { input }, { request }) =>
      run(async () => {
        await deactivatePartner(operatorCall(request, 'deactivatePartner'), { partnerId: input.partnerId });
        return { partnerId: input.partnerId };
      }),
    createMerchant: (_, { input }, { request }) =>
      run(async () => {
        const merchant = await createMerchant(operatorCall(request, 'createMerchant'), {
          orgNumber: input.orgNumber,
          name: input.name ?? undefined,
        });
        return { merchant: { merchantId: merchant.id, name: merchant.name, orgNumber: merchant.orgNumber, status: merchant.status } };
      }),
    deactivateMerchant: (_, { input }, { request }) =>
      run(async () => {
        await deactivateMerchant(operatorCall(request, 'deactivateMerchant'), { merchantId: input.merchantId });
        return { merchantId: input.merchantId };
      }),
    createSalesUnit: (_, { input }, { request }) =>
      run(async () => {
        const unit = await createSalesUnit(operatorCall(request, 'createSalesUnit'), {
          merchantId: input.merchantId,
          name: input.name,
          msn: input.msn ?? undefined,
          captureType: input.captureType ?? undefined,
          longLivingPaymentsAllowed: input.longLivingPaymentsAllowed ?? false,
          skipLandingPageAllowed: input.skipLandingPageAllowed ?? false,
          recurringAllowed: input.recurringAllowed ?? false,
        });
        return {
          salesUnit: {
            msn: unit.msn,
            merchantId: unit.merchantId,
            name: unit.name,
            captureType: unit.captureType as CaptureType,
            longLivingPaymentsAllowed: unit.longLivingPaymentsAllowed,
            skipLandingPageAllowed: unit.skipLandingPageAllowed,
            recurringAllowed: unit.recurringAllowed,
          },
        };
      }),
    setSalesUnitExpress: (_, { input }, { request }) =>
      run(async () => {
        await setExpressEnabled(operatorCall(request, 'setSalesUnitExpress'), { msn: input.msn, enabled: input.enabled });
        return { msn: input.msn, expressEnabled: input.enabled };
      }),
    createApiClient: (_, { input }, { request }) =>
      run(async () => {
        const call = operatorCall(request, 'createApiClient');
        const issued = await createApiClient(call, { kind: OWNER_KINDS[input.ownerKind], id: input.ownerId }, input.clientId ?? undefined);
        if (issued.ownerId === null) throw new Error('a client owned by nobody was issued as an owned one');
        return {
          apiClient: {
            clientId: issued.clientId,
            clientSecret: issued.clientSecret,
            subscriptionKey: issued.subscriptionKey,
            ownerKind: OWNER_KIND_NAMES[issued.kind],
            ownerId: issued.ownerId,
          },
        };
      }),
    createWalletClient: (_, { input }, { request }) =>
      run(async () => {
        const issued = await createApiClient(operatorCall(request, 'createWalletClient'), { kind: 'wallet' }, input.clientId ?? undefined);
        return { walletClient: { clientId: issued.clientId, clientSecret: issued.clientSecret, subscriptionKey: issued.subscriptionKey } };
      }),
    createPsp: (_, { input }, { request }) =>
      run(async () => {
        const psp = await createPsp(operatorCall(request, 'createPsp'), { name: input.name });
        return { psp: { pspId: psp.id, name: psp.name } };
      }),
    connectSalesUnit: (_, { input }, { request }) =>
      run(async () => {
        const link = await connectSalesUnit(operatorCall(request, 'connectSalesUnit'), { partnerId: input.partnerId, msn: input.msn });
        return { partnerId: link.partnerId, msn: link.msn, merchantConsent: link.merchantConsent };
      }),
    recordConsent: (_, { input }, { request }) =>
      run(async () => ({
        msns: await setMerchantConsent(operatorCall(request, 'recordConsent'), { ...input, consent: true }),
      })),
    withdrawConsent: (_, { input }, { request }) =>
      run(async () => ({
        msns: await setMerchantConsent(operatorCall(request, 'withdrawConsent'), { ...input, consent: false }),
      })),
    rotateClientSecret: (_, { input }, { services, request }) =>
      run(async () => {
        const call = operatorCall(request, 'rotateClientSecret');
        const overlapMs = input.overlapMs ?? services.config.secretOverlapMs;
        if (overlapMs < 0)
          throw new AppError('OPERATOR_INVALID', 'overlapMs: not negative', [{ name: 'overlapMs', reason: 'Not negative' }]);
        const rotated = await rotateSecret(call, { clientId: input.clientId, overlapMs });
        return {
          clientId: rotated.clientId,
          clientSecret: rotated.clientSecret,
          previousSecretRetiresAt: rotated.previousSecretRetiresAt.toISOString(),
        };
      }),
    retireClientSecret: (_, { input }, { request }) =>
      run(async () => {
        await retireSecret(operatorCall(request, 'retireClientSecret'), { clientId: input.clientId });
        return { clientId: input.clientId };
      }),
  },
};
