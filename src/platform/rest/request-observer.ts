/**
 * What the app tells observers after every answered request (REST, pages and the graph over HTTP): the route's
 * method and path template, the sales unit it named (the `Merchant-Serial-Number` header, else an `{msn}` path
 * parameter) and the status sent. A request whose client hung up before it was read is not observed: no answer
 * was sent. Observers count in memory: they must not touch the database per request.
 */
export interface ObservedRequest {
  method: string;
  /** The matched route's path template (`/epayment/v1/payments/{reference}`), or the raw path when none matched. */
  pattern: string;
  msn: string | undefined;
  status: number;
  /** The caller's credentials were accepted for the sales unit it named (`HttpRequest.authenticated`). */
  authenticated: boolean;
  at: Date;
}

export type RequestObserver = (request: ObservedRequest) => void;
