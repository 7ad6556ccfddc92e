import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { HttpResponse } from '../../platform/rest/http-types.js';
import { projectRoot } from './project-root.js';

/** One page's bundle, as scripts/build-pages.mjs names it in dist/pages/manifest.json. */
export interface PageEntry {
  script: string;
  style?: string;
  /** Chunks the script imports at once: preloaded by the page so they load in parallel. */
  imports: string[];
}

export type PageName = 'dashboard' | 'ide' | 'wallet' | 'editor.worker' | 'json.worker' | 'graphql.worker';

interface Manifest {
  buildId: string;
  entries: Record<string, PageEntry>;
}

export const ASSET_PREFIX = '/assets/';

const CONTENT_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  ttf: 'font/ttf',
  woff: 'font/woff',
  woff2: 'font/woff2',
  svg: 'image/svg+xml',
  txt: 'text/plain; charset=utf-8',
};

/**
 * The built browser bundles (`npm run build`, and jest's set-up, run scripts/build-pages.mjs). Their names carry a
 * content hash, so they are cached for a year; each is sent brotli- or gzip-compressed when the client accepts it.
 */
export class PageAssets {
  private manifest: Manifest | undefined;

  constructor(private readonly dir: string = join(projectRoot(), 'dist/pages')) {}

  /** Read at the first page served, so a service built without its pages still serves the APIs. */
  private loadManifest(): Manifest {
    if (this.manifest) return this.manifest;
    try {
      this.manifest = JSON.parse(readFileSync(join(this.dir, 'manifest.json'), 'utf8')) as Manifest;
    } catch (error) {
      throw new Error(`The pages are not built (${this.dir}/manifest.json): run \`npm run build\``, { cause: error });
    }
    return this.manifest;
  }

  entry(name: PageName): PageEntry {
    const entry = this.loadManifest().entries[name];
    if (!entry) throw new Error(`No bundle named ${name} in ${this.dir}/manifest.json`);
    return entry;
  }

  url(file: string): string {
    return ASSET_PREFIX + file;
  }

  /** The asset named by a request path under ASSET_PREFIX, or undefined when there is none. */
  async serve(file: string, acceptEncoding: string | undefined): Promise<HttpResponse | undefined> {
    // Only names the build wrote: no separators, no dot files, no compressed siblings asked for directly.
    if (!/^[\w.-]+$/.test(file) || file.startsWith('.') || /\.(br|gz)$/.test(file) || file === 'manifest.json') return undefined;
    const type = CONTENT_TYPES[file.slice(file.lastIndexOf('.') + 1)];
    if (!type) return undefined;
    const headers: Record<string, string> = {
      'content-type': type,
      'cache-control': 'public, max-age=31536000, immutable',
      'x-content-type-options': 'nosniff',
      vary: 'accept-encoding',
      // Workers and module scripts are fetched in CORS mode; the pages and their assets share one origin.
      'cross-origin-resource-policy': 'same-origin',
    };
    for (const [encoding, suffix] of preferredEncodings(acceptEncoding)) {
      const body = await readOptional(join(this.dir, file + suffix));
      if (!body) continue;
      if (encoding !== 'identity') headers['content-encoding'] = encoding;
      return { status: 200, headers, body };
    }
    return undefined;
  }
}

function preferredEncodings(acceptEncoding: string | undefined): [string, string][] {
  const accepted = new Set((acceptEncoding ?? '').split(',').map((part) => part.split(';')[0]!.trim().toLowerCase()));
  const order: [string, string][] = [];
  if (accepted.has('br')) order.push(['br', '.br']);
  if (accepted.has('gzip')) order.push(['gzip', '.gz']);
  order.push(['identity', '']);
  return order;
}

async function readOptional(path: string): Promise<Buffer | undefined> {
  try {
    return await readFile(path);
  } catch {
    return undefined;
  }
}

/** The bundles of this installation (dist/pages/ of the project), shared by every page route. */
export const pageAssets = new PageAssets();
