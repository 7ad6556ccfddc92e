// newman ships no types; this declares the part of its library interface the Postman collections test uses.
declare module 'newman' {
  import type { EventEmitter } from 'node:events';

  export interface PostmanUrl {
    toString(): string;
    update(url: string): void;
  }
  export interface PostmanItem {
    id: string;
    name: string;
  }
  export interface NewmanRunOptions {
    collection: object;
    environment?: object;
    reporters?: string[];
    timeout?: number;
    timeoutRequest?: number;
    timeoutScript?: number;
    delayRequest?: number;
    insecure?: boolean;
    ignoreRedirects?: boolean;
    suppressExitCode?: boolean;
  }
  export interface NewmanRunSummary {
    run: { failures: unknown[]; executions: unknown[] };
  }
  export interface NewmanRequestArgs {
    cursor?: { scriptId?: string };
    request: { url: PostmanUrl; method: string };
    response?: { code: number; text(): string };
    item: PostmanItem;
  }
  export interface NewmanAssertionArgs {
    assertion: string;
    item: PostmanItem;
  }
  export interface NewmanScriptArgs {
    execution: unknown;
    event: { listen: string };
    item: PostmanItem;
  }
  export interface NewmanRun extends EventEmitter {
    on(event: 'beforeRequest', listener: (err: Error | null, args: NewmanRequestArgs) => void): this;
    on(event: 'request', listener: (err: Error | null, args: NewmanRequestArgs) => void): this;
    on(event: 'assertion', listener: (err: Error | null, args: NewmanAssertionArgs) => void): this;
    on(event: 'script', listener: (err: Error | null, args: NewmanScriptArgs) => void): this;
  }
  export function run(options: NewmanRunOptions, callback?: (err: Error | null, summary: NewmanRunSummary) => void): NewmanRun;
  const newman: { run: typeof run };
  export default newman;
}
