import { randomBytes } from 'node:crypto';
import type { Services } from '../platform/context.js';
import { forkEm } from '../platform/db/orm.js';
import { recordEvent } from '../platform/events/record-event.js';
import { testUserApproves } from '../wallet/test-user-approval.js';
import { CHECKED_IN, QR_STREAM, type CheckInPayload } from './qr-event.types.js';
import type { QrRow } from './qr.view.js';

const COLUMNS = 'key, msn, kind, qr_id, target_url, location_description, expires_at';

/** The callback QR (or mapped beacon) a scan URL names; undefined for anything else. */
export async function findScannableQr(services: Services, key: string): Promise<QrRow | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(key)) return undefined;
  const [row] = await forkEm(services.orm).execute<QrRow[]>(
    `select ${COLUMNS} from qr_code where key = ? and kind in ('callback', 'beacon') limit 1`,
    [key],
  );
  return row;
}

export const NO_WALLET_USER_IN_PRODUCTION = 'There is no simulated wallet user in production.';

/** `phoneNumber`: the test user who checked in, for the page to name. */
export type CheckInOutcome = { ok: true; payload: CheckInPayload; phoneNumber: string } | { ok: false; status: number; message: string };

/**
 * The wallet user scanning a callback QR: a check-in with a fresh customer token, and its event in the outbox, in
 * one transaction. The token names the user to a later create-payment `customer.customerToken`.
 */
export async function checkIn(services: Services, key: string, phoneNumberInput: string): Promise<CheckInOutcome> {
  // In production the real wallet app scans; this page's test users stand in for it only in the test environment.
  if (services.config.env !== 'test') return { ok: false, status: 403, message: NO_WALLET_USER_IN_PRODUCTION };
  const qr = await findScannableQr(services, key);
  if (!qr) return { ok: false, status: 404, message: 'This QR code is not known.' };
  const now = services.testClocks.of(qr.msn).now();
  const payload: CheckInPayload = {
    customerToken: randomBytes(24).toString('base64'),
    merchantQrId: qr.qr_id,
    merchantSerialNumber: qr.msn,
    initiatedAt: now.toISOString(),
  };
  const checkedIn = await forkEm(services.orm).transactional(async (em) => {
    const acting = await testUserApproves(em, { phoneNumber: phoneNumberInput, channel: 'page', act: 'check-in' }, now);
    if (!acting.ok) return undefined;
    await em.execute('insert into qr_check_in (customer_token, qr_key, msn, phone_number, initiated_at) values (?, ?, ?, ?, ?)', [
      payload.customerToken,
      qr.key,
      qr.msn,
      acting.user.phoneNumber,
      now,
    ]);
    recordEvent(em, {
      streamType: QR_STREAM,
      streamId: qr.key,
      msn: qr.msn,
      name: CHECKED_IN,
      payload: { ...payload },
      occurredAt: now,
    });
    return acting.user.phoneNumber;
  });
  if (!checkedIn) return { ok: false, status: 400, message: 'Pick a test user of the test environment.' };
  return { ok: true, payload, phoneNumber: checkedIn };
}
