import type { MerchantClient } from './merchant-client.js';
import { connectionParamsOf, eventually, Subscriber } from './subscriber.js';
import type { TestApp } from './test-app.js';

/** The graphql-ws subscriptions a test file opens on its app: closed, and released by the bus, after each test. */
export interface AppSubscriptions {
  /** A subscription once it joined the bus (a resumed one joins when its replay caught up), or once it failed. */
  subscribe<T = any>(client: MerchantClient, document: string, variables: Record<string, unknown>): Promise<Subscriber<T>>;
  /** The first answer to a subscription the server refuses: its failure or its first result's errors, as JSON. */
  refusal(client: MerchantClient, document: string, variables: Record<string, unknown>): Promise<string>;
  /** Closes one subscription before the test ends, once the bus let go of it. */
  close(subscriber: Subscriber): Promise<void>;
}

export function useSubscriptions(app: () => TestApp): AppSubscriptions {
  const open: Subscriber[] = [];
  const bus = () => app().app.services.events;
  const start = async <T>(client: MerchantClient, document: string, variables: Record<string, unknown>) => {
    const subscriber = new Subscriber<T>(app().baseUrl, await connectionParamsOf(client)).subscribe(document, variables);
    open.push(subscriber);
    return subscriber;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((s) => s.close()));
    await eventually(() => bus().subscriberCount === 0, 'subscriptions to be released');
  });
  return {
    async subscribe<T>(client: MerchantClient, document: string, variables: Record<string, unknown>) {
      const before = bus().subscriberCount;
      const subscriber = await start<T>(client, document, variables);
      await eventually(() => subscriber.failure !== undefined || bus().subscriberCount > before, 'the subscription to register');
      return subscriber;
    },
    async refusal(client, document, variables) {
      const subscriber = await start(client, document, variables);
      await eventually(() => subscriber.failure !== undefined || subscriber.results.length > 0, 'an answer');
      return JSON.stringify(subscriber.failure ?? subscriber.results[0]!.errors);
    },
    async close(subscriber) {
      open.splice(open.indexOf(subscriber), 1);
      await subscriber.close();
      await eventually(() => bus().subscriberCount === 0, 'the subscription to end');
    },
  };
}
