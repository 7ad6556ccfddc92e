import { testMerchantClients, testPartner, testPsp } from '../../merchants/merchants.seed.js';
import { PaygraphClient, unreachable, type Answer, type Principal } from '../network/paygraph-client.js';

export { unreachable };
export type { Answer, Principal };

/**
 * The principal that acts for a sales unit in the test environment: its merchant's own client (123456, 654321), or the
 * partner, which acts for the units connected to it by naming them.
 */
export function merchantPrincipal(msn: string): Principal {
  const merchant = testMerchantClients.find((m) => m.msn === msn);
  const client = merchant ?? testPartner;
  return {
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    subscriptionKey: client.subscriptionKey,
    actingFor: { 'Merchant-Serial-Number': msn },
  };
}

/** The test environment's PSP, acting for one of its merchants' sales units. */
export function pspPrincipal(msn: string): Principal {
  return {
    clientId: testPsp.clientId,
    clientSecret: testPsp.clientSecret,
    subscriptionKey: testPsp.subscriptionKey,
    actingFor: { 'Merchant-Serial-Number': msn, 'Psp-Id': testPsp.id },
  };
}

/**
 * The test environment over HTTP and nothing else (PaygraphClient), with the pages a person uses (landing page,
 * checkout page, QR scan page) posted as a browser posts their forms. A refused client or graph operation says what
 * a scenario needs to hear: the service is no test environment, or a step failed.
 */
export class TestEnvironmentClient extends PaygraphClient {
  /** A page's form posted as the browser showing it would (same origin, form encoding); `url` may be absolute. */
  form(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Answer> {
    return this.send('POST', url, {
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Origin: new URL(/^https?:\/\//.test(url) ? url : `${this.baseUrl}${url}`).origin,
        ...headers,
      },
      body: new URLSearchParams(fields).toString(),
    });
  }

  protected override refused(principal: Principal, status: number): Error {
    return new NotATestEnvironment(`the test environment's client ${principal.clientId} was refused (${status})`);
  }

  protected override graphFailure(message: string): Error {
    return new TriggerFailure(message);
  }
}

/** A step of a scenario was refused or went otherwise than the scenario says. */
export class TriggerFailure extends Error {}

/** The service is not a Paygraph test environment: the command runs nothing there. */
export class NotATestEnvironment extends Error {}

/** Refuses a service that is not a test environment, by what its graph says of itself (Query.serviceEnvironment). */
export async function assertTestEnvironment(client: TestEnvironmentClient): Promise<void> {
  let environment: string | undefined;
  try {
    environment = (
      await client.graph<{ serviceEnvironment: string }>(merchantPrincipal(testMerchantClients[0]!.msn), '{ serviceEnvironment }')
    ).serviceEnvironment;
  } catch (error) {
    // Not reached at all (refused, timed out): said as such by the command, not taken for an answer.
    if (error instanceof NotATestEnvironment || unreachable(error)) throw error;
    throw new NotATestEnvironment(`it does not say it is a test environment (${error instanceof Error ? error.message : String(error)})`);
  }
  if (environment !== 'TEST') throw new NotATestEnvironment(`it is a ${String(environment).toLowerCase()} environment`);
}

/** Asserts an answer's status, naming the step that failed. */
export function expectStatus(answer: Answer, status: number, step: string): Answer {
  if (answer.status !== status) {
    const detail = answer.text.slice(0, 300);
    throw new TriggerFailure(`${step}: answered ${answer.status}, expected ${status}: ${detail}`);
  }
  return answer;
}
