import { randomBytes, randomUUID } from 'node:crypto';
import type { SalesUnitContext } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import type { WebhookRegistration } from './webhook.schemas.js';
import { Webhook } from './webhook.entity.js';
import { scoped } from '../platform/auth/tenancy.js';

/** At most this many registrations of one sales unit may subscribe to any one event (FACTS §2, spec text). */
export const MAX_WEBHOOKS_PER_EVENT = 5;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The caller's registrations, oldest first. The secret is never shown again after registration. */
export async function listWebhooks(ctx: SalesUnitContext): Promise<Webhook[]> {
  return ctx.em.find(Webhook, scoped(ctx), { orderBy: { createdAt: 'asc', id: 'asc' } });
}

/** Registers a webhook for the caller's sales unit and hands out its signing secret, once. */
export async function registerWebhook(
  ctx: SalesUnitContext,
  registration: WebhookRegistration,
): Promise<{ webhook: Webhook; secret: string }> {
  return ctx.em.transactional(async (em) => {
    // Registrations of one sales unit take turns, so two at once cannot both squeeze under the limit.
    await em.execute('select msn from sales_unit where msn = ? for update', [scoped(ctx).msn]);
    const counts = await em.execute<{ event: string; n: unknown }[]>(
      `select event, count(*) as n from webhook w, jsonb_array_elements_text(w.events) as event where w.msn = ? group by event`,
      [scoped(ctx).msn],
    );
    const taken = new Map(counts.map((row) => [row.event, Number(row.n)]));
    const full = registration.events.flatMap((name, i) => ((taken.get(name) ?? 0) >= MAX_WEBHOOKS_PER_EVENT ? [{ name, i }] : []));
    if (full.length > 0) {
      throw new AppError(
        'WEBHOOK_LIMIT_REACHED',
        `At most ${MAX_WEBHOOKS_PER_EVENT} webhooks may be registered per event`,
        full.map(({ name, i }) => ({
          name: `events[${i}]`,
          reason: `${MAX_WEBHOOKS_PER_EVENT} webhooks are already registered for ${name}`,
        })),
      );
    }
    const secret = randomBytes(32).toString('base64');
    const webhook = em.create(Webhook, {
      id: randomUUID(),
      msn: scoped(ctx).msn,
      url: registration.url,
      events: registration.events,
      secret,
      createdAt: ctx.clock.now(),
    });
    await em.flush();
    return { webhook, secret };
  });
}

/** Deletes one of the caller's registrations, with its pending deliveries and their history. */
export async function deleteWebhook(ctx: SalesUnitContext, id: string): Promise<void> {
  const deleted = UUID.test(id) ? await ctx.em.nativeDelete(Webhook, { id, ...scoped(ctx) }) : 0;
  if (deleted === 0) throw webhookNotFound(id);
}

/** Another sales unit's registration is as unknown as one that never existed. */
export function webhookNotFound(id: string): AppError {
  return new AppError('WEBHOOK_NOT_FOUND', `No webhook ${id} for this Merchant-Serial-Number`, [
    { name: 'id', reason: 'Unknown webhook id' },
  ]);
}

export function isWebhookId(id: string): boolean {
  return UUID.test(id);
}
