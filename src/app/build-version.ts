import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Lestrade's version from its package.json, found upwards from this file (src/observability in
 * the sources, dist/src/observability in a build); "unknown" if none is found.
 */
export function buildVersion(from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from, i = 0; i < 5; i++, dir = dirname(dir)) {
    const file = join(dir, 'package.json');
    if (!existsSync(file)) continue;
    try {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'lestrade' && pkg.version) return pkg.version;
    } catch {
      // Not a readable package.json: look further up.
    }
  }
  return 'unknown';
}
