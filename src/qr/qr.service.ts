import { randomUUID } from 'node:crypto';
import { scoped } from '../platform/auth/tenancy.js';
import type { SalesUnitContext } from '../platform/context.js';
import { AppError } from '../platform/errors/app-error.js';
import type { RedirectQrCommand } from './qr.schemas.js';
import type { QrKind, QrRow } from './qr.view.js';
import './qr.errors.js';

const COLUMNS = 'key, msn, kind, qr_id, target_url, location_description, expires_at';
/** A QR past its expiry is gone: every read and write of the QR API sees only live ones. */
const LIVE = '(expires_at is null or expires_at > ?)';

function notFound(kind: QrKind): AppError {
  const name = kind === 'redirect' ? 'id' : kind === 'callback' ? 'merchantQrId' : 'beaconId';
  return new AppError('QR_NOT_FOUND', 'No such QR code', [{ name, reason: 'Not found' }]);
}

export async function findQr(ctx: SalesUnitContext, kind: QrKind, id: string): Promise<QrRow> {
  const [row] = await ctx.em.execute<QrRow[]>(`select ${COLUMNS} from qr_code where msn = ? and kind = ? and qr_id = ? and ${LIVE}`, [
    scoped(ctx).msn,
    kind,
    id,
    ctx.clock.now(),
  ]);
  if (!row) throw notFound(kind);
  return row;
}

/** The sales unit's live QRs of one kind, by id; `after` continues after an id (keyset). */
export async function listQrs(ctx: SalesUnitContext, kind: QrKind, page: { limit?: number; after?: string } = {}): Promise<QrRow[]> {
  return ctx.em.execute<QrRow[]>(
    `select ${COLUMNS} from qr_code where msn = ? and kind = ? and ${LIVE} and qr_id > ? order by qr_id limit ?`,
    [scoped(ctx).msn, kind, ctx.clock.now(), page.after ?? '', page.limit ?? 10_000],
  );
}

/** Creates a redirect QR; an existing live id is a 409 (an expired one is gone, so its id may be used again). */
export async function createRedirectQr(ctx: SalesUnitContext, command: RedirectQrCommand): Promise<QrRow> {
  const now = ctx.clock.now();
  const expiresAt = command.ttl === null ? null : new Date(now.getTime() + command.ttl * 1000);
  const [row] = await ctx.em.execute<QrRow[]>(
    `insert into qr_code (key, msn, kind, qr_id, target_url, expires_at, created_at) values (?, ?, 'redirect', ?, ?, ?, ?)
     on conflict (msn, kind, qr_id) do update set key = excluded.key, target_url = excluded.target_url,
       expires_at = excluded.expires_at, created_at = excluded.created_at
     where qr_code.expires_at is not null and qr_code.expires_at <= ?
     returning ${COLUMNS}`,
    [randomUUID(), scoped(ctx).msn, command.id, command.redirectUrl, expiresAt, now, now],
  );
  if (!row)
    throw new AppError('QR_ALREADY_EXISTS', `A QR with id ${command.id} exists`, [{ name: 'id', reason: 'A QR with this id exists' }]);
  return row;
}

/** Points a redirect QR elsewhere; its image (and content) stay the same. */
export async function updateRedirectQr(ctx: SalesUnitContext, id: string, redirectUrl: string): Promise<QrRow> {
  const [row] = await ctx.em.execute<QrRow[]>(
    `update qr_code set target_url = ? where msn = ? and kind = 'redirect' and qr_id = ? and ${LIVE} returning ${COLUMNS}`,
    [redirectUrl, scoped(ctx).msn, id, ctx.clock.now()],
  );
  if (!row) throw notFound('redirect');
  return row;
}

export async function deleteQr(ctx: SalesUnitContext, kind: QrKind, id: string): Promise<void> {
  const rows = await ctx.em.execute<{ key: string }[]>(
    `delete from qr_code where msn = ? and kind = ? and qr_id = ? and ${LIVE} returning key`,
    [scoped(ctx).msn, kind, id, ctx.clock.now()],
  );
  if (rows.length === 0) throw notFound(kind);
}

/**
 * Creates or updates a callback QR (or maps a printed beacon id): a later call changes the location only, never
 * the key, so the image stays the same.
 */
export async function putCallbackQr(
  ctx: SalesUnitContext,
  kind: 'callback' | 'beacon',
  id: string,
  locationDescription: string,
): Promise<QrRow> {
  const [row] = await ctx.em.execute<QrRow[]>(
    `insert into qr_code (key, msn, kind, qr_id, location_description, created_at) values (?, ?, ?, ?, ?, ?)
     on conflict (msn, kind, qr_id) do update set location_description = excluded.location_description
     returning ${COLUMNS}`,
    [randomUUID(), scoped(ctx).msn, kind, id, locationDescription, ctx.clock.now()],
  );
  return row!;
}

/**
 * A one-time payment QR for a landing URL this service handed out for one of the caller's payments that still
 * awaits its user; it expires with the payment's session. Anything else is a 400 naming `url`.
 */
export async function createOneTimeQr(ctx: SalesUnitContext, url: string): Promise<QrRow> {
  const refused = () =>
    AppError.validation([{ name: 'url', reason: 'Must be a landing page URL of one of your payments awaiting approval' }]);
  let token: string | null = null;
  try {
    const parsed = new URL(url);
    const landing = new URL('/wallet/landing', ctx.config.publicUrl);
    if (parsed.origin === landing.origin && parsed.pathname === landing.pathname) token = parsed.searchParams.get('token');
  } catch {
    throw refused();
  }
  if (!token) throw refused();
  const now = ctx.clock.now();
  const [payment] = await ctx.em.execute<{ id: string; expires_at: Date | string }[]>(
    `select id, expires_at from payment where msn = ? and approval_token = ? and state = 'CREATED' and expires_at > ? limit 1`,
    [scoped(ctx).msn, token, now],
  );
  if (!payment) throw refused();
  await ctx.em.execute(
    `insert into qr_code (key, msn, kind, qr_id, target_url, expires_at, created_at) values (?, ?, 'onetime', ?, ?, ?, ?)
     on conflict (msn, kind, qr_id) do nothing`,
    [randomUUID(), scoped(ctx).msn, payment.id, url, payment.expires_at, now],
  );
  return findQr(ctx, 'onetime', payment.id);
}
