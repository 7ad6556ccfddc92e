/** @database-free (code and files only, no database: CI runs this file in one pass, jest.config.js) */
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const domainFolders = readdirSync(join(root, 'src'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !['platform', 'modules', 'generated'].includes(entry.name))
  .map((entry) => entry.name);

/**
 * A domain's faces are found by its name: `schema/<domain>*.graphql` and `resolvers/<domain>*.ts` for the folder
 * `src/<domain>/`, and `platform-<job>` for what serves no domain folder (scalars, `node(id:)`, every stream's events).
 */
function ownerOf(file: string): string | undefined {
  const stem = file.replace(/\.(graphql|ts)$/, '');
  if (stem.startsWith('platform-')) return 'platform';
  // The longest folder name that names the file: psp-signup.graphql is PSP signup's, not PSP's.
  return domainFolders.filter((domain) => stem === domain || stem.startsWith(`${domain}-`)).sort((a, b) => b.length - a.length)[0];
}

describe("a domain's faces are named after its folder", () => {
  test.each(['schema', 'resolvers'])('every file of %s/ names its domain folder or the platform job it serves', (dir) => {
    const unnamed = readdirSync(join(root, dir)).filter((file) => ownerOf(file) === undefined);
    expect(unnamed).toEqual([]);
  });

  test('PSP signup has faces of its own, apart from PSP payments', () => {
    expect(ownerOf('psp-signup.graphql')).toBe('psp-signup');
    expect(readdirSync(join(root, 'schema'))).toContain('psp-signup.graphql');
    expect(readdirSync(join(root, 'resolvers'))).toContain('psp-signup.ts');
  });
});
