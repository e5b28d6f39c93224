import { existsSync, readFileSync } from 'node:fs';

/** The version in package.json: beside cli/ when run from the sources, one level further up from dist/cli/. */
export function packageVersion(): string {
  for (const rel of ['../package.json', '../../package.json']) {
    const url = new URL(rel, import.meta.url);
    if (!existsSync(url)) continue;
    const pkg = JSON.parse(readFileSync(url, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'lestrade' && pkg.version) return pkg.version;
  }
  return 'unknown';
}
