import type { Services } from '../context.js';
import { forkEm } from '../db/orm.js';
import type { HttpResponse } from '../rest/http-types.js';

/**
 * Whether this instance should be sent traffic, for a load balancer's health check (`GET /readyz`): the database
 * answers, every migration has run, and the instance is not draining for a shutdown. `/healthz` only says the
 * process is alive, which a draining or database-less instance still is.
 */
export class Readiness {
  draining = false;
  private migrated = false;

  constructor(private readonly services: Services) {}

  async probe(): Promise<HttpResponse> {
    if (this.draining) return unready('draining');
    try {
      const em = forkEm(this.services.orm);
      await em.execute('select 1');
      if (!this.migrated) {
        // Once done they stay done: one look at the migrations table until then, none after.
        this.migrated = (await this.services.orm.migrator.getPending()).length === 0;
        if (!this.migrated) return unready('migrations pending');
      }
    } catch {
      return unready('database unreachable');
    }
    return { status: 200, body: { status: 'ready' } };
  }
}

function unready(reason: string): HttpResponse {
  return { status: 503, body: { status: 'unavailable', reason } };
}
