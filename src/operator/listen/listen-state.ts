import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Where a listener keeps what outlives it: the last acknowledged event id, and its signing secret beside it. */
export interface ListenState {
  cursorFile: string;
  secretFile: string;
}

/** The default cursor file of a sales unit's listener, under the working directory. */
export function defaultCursorFile(msn: string): string {
  return join('.paygraph-listen', `${msn}.cursor`);
}

/** The listener's files: the cursor file given, and `listen.secret` in its directory. */
export function listenState(cursorFile: string): ListenState {
  return { cursorFile, secretFile: join(dirname(cursorFile), 'listen.secret') };
}

/**
 * The secret listen signs with, made on first use (32 random bytes, base64url) and kept readable by its owner only:
 * the receiver verifies forwarded events with it exactly as it verifies a webhook registration's deliveries.
 */
export async function signingSecret(state: ListenState): Promise<string> {
  const existing = await readIfPresent(state.secretFile);
  if (existing !== undefined && existing.trim() !== '') return existing.trim();
  await mkdir(dirname(state.secretFile), { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  // `wx`: two listeners starting at once in one directory keep one secret, the first one's.
  try {
    await writeFile(state.secretFile, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
    return (await readFile(state.secretFile, 'utf8')).trim();
  }
}

/** The last acknowledged event id, or undefined when this listener never ran. */
export async function readCursor(state: ListenState): Promise<string | undefined> {
  const text = (await readIfPresent(state.cursorFile))?.trim();
  if (text === undefined || text === '') return undefined;
  if (!/^\d{1,15}$/.test(text)) throw new Error(`${state.cursorFile} holds no event id ("${text.slice(0, 40)}")`);
  return text;
}

/**
 * Records an event id as acknowledged: written to a file beside the cursor and renamed over it, so a listener killed
 * at any moment leaves the old cursor or the new one, never a torn one.
 */
export async function writeCursor(state: ListenState, eventId: string): Promise<void> {
  await mkdir(dirname(state.cursorFile), { recursive: true });
  const next = `${state.cursorFile}.next`;
  await writeFile(next, `${eventId}\n`);
  await rename(next, state.cursorFile);
}

async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ENOENT') return undefined;
    throw error;
  }
}
