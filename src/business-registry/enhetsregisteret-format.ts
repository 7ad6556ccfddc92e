import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { RegistryEntityKind, RegistryStatus } from './registry-entry.entity.js';

/**
 * Enhetsregisteret's open bulk data (data.brreg.no: `/enhetsregisteret/api/enheter/lastned` and
 * `/underenheter/lastned`, JSON or `/csv`, gzipped or not): main entities (enheter) and sub entities (underenheter),
 * one file each. Of each organisation we keep what merchant checks need: number, name, main or sub entity, the
 * main entity of a sub entity (`overordnetEnhet`), and whether it is active: deleted (`slettedato`) or closed down
 * (`nedleggelsesdato`, sub entities) counts as deleted; bankrupt (`konkurs`) or being wound up (`underAvvikling`,
 * `underTvangsavviklingEllerTvangsopplosning`) as inactive. Files are read as streams: the full files are gigabytes.
 */
export interface RegistryRecord {
  orgNumber: string;
  name: string;
  kind: RegistryEntityKind;
  status: RegistryStatus;
  parentOrgNumber: string | null;
}

export type RegistryFileFormat = 'json' | 'csv';

export function formatOfFile(path: string): RegistryFileFormat {
  return /\.csv(\.gz)?$/i.test(path) ? 'csv' : 'json';
}

/** The download of sub entities is named `underenheter…`; everything else is main entities. */
export function kindOfFile(path: string): RegistryEntityKind {
  return /underenhet/i.test(path.split('/').pop() ?? '') ? 'sub' : 'main';
}

export async function* readRegistryFile(
  path: string,
  kind: RegistryEntityKind,
  format = formatOfFile(path),
): AsyncGenerator<RegistryRecord> {
  const lines = createInterface({ input: openText(path), crlfDelay: Infinity });
  if (format === 'csv') yield* csvRecords(lines, kind);
  else for await (const object of jsonArrayObjects(lines)) yield recordOf(object, kind);
}

function openText(path: string): NodeJS.ReadableStream {
  const file = createReadStream(path);
  return path.endsWith('.gz') ? file.pipe(createGunzip()) : file;
}

type Fields = (name: string) => unknown;

function recordOf(object: Record<string, unknown>, kind: RegistryEntityKind): RegistryRecord {
  return record(
    (name) => name.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], object),
    kind,
  );
}

function record(field: Fields, kind: RegistryEntityKind): RegistryRecord {
  const text = (name: string): string => {
    const value = field(name);
    return value === undefined || value === null ? '' : String(value).trim();
  };
  const yes = (name: string): boolean => {
    const value = field(name);
    return value === true || value === 'true' || value === 'J';
  };
  const orgNumber = text('organisasjonsnummer');
  const gone = text('slettedato') !== '' || text('nedleggelsesdato') !== '';
  const troubled = yes('konkurs') || yes('underAvvikling') || yes('underTvangsavviklingEllerTvangsopplosning');
  const parent = text('overordnetEnhet');
  return {
    orgNumber,
    name: text('navn'),
    kind,
    status: gone ? 'deleted' : troubled ? 'inactive' : 'active',
    // A main entity's `overordnetEnhet` is its place in a public body's hierarchy, not what makes it a sub entity.
    parentOrgNumber: kind === 'sub' && parent !== '' ? parent : null,
  };
}

async function* csvRecords(lines: AsyncIterable<string>, kind: RegistryEntityKind): AsyncGenerator<RegistryRecord> {
  let header: string[] | undefined;
  let pending = '';
  for await (const line of lines) {
    // A quoted value may hold a line break: a row ends when its quotes are balanced.
    pending = pending === '' ? line : `${pending}\n${line}`;
    if ((pending.match(/"/g)?.length ?? 0) % 2 === 1) continue;
    const cells = csvCells(pending);
    pending = '';
    if (!header) {
      header = cells;
      continue;
    }
    if (cells.length === 1 && cells[0] === '') continue;
    const row = header;
    yield record((name) => cells[row.indexOf(name)], kind);
  }
}

/** One CSV row as Enhetsregisteret writes it: comma-separated, every value in double quotes, `""` for a quote. */
export function csvCells(row: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < row.length; i++) {
    const c = row[i];
    if (quoted) {
      if (c === '"' && row[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      cells.push(cell);
      cell = '';
    } else cell += c;
  }
  cells.push(cell);
  return cells;
}

/**
 * The objects of a top-level JSON array, one at a time: the download is one array of some million objects, too
 * large to parse whole. Splits at the array's top level by counting braces outside strings.
 */
async function* jsonArrayObjects(lines: AsyncIterable<string>): AsyncGenerator<Record<string, unknown>> {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let current = '';
  for await (const line of lines) {
    for (const c of `${line}\n`) {
      if (depth > 0) current += c;
      if (inString) {
        if (escaped) escaped = false;
        else if (c === '\\') escaped = true;
        else if (c === '"') inString = false;
        continue;
      }
      if (c === '"') inString = true;
      else if (c === '{') {
        if (depth === 0) current = '{';
        depth++;
      } else if (c === '}') {
        depth--;
        if (depth === 0) yield JSON.parse(current) as Record<string, unknown>;
      }
    }
  }
  if (depth !== 0) throw new Error('The JSON file ends inside an object');
}
