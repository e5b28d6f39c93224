import { readFileSync, readdirSync } from 'node:fs';

const ROOT = new URL('../../../', import.meta.url);

/** Env variable names bound in the config loader and the sources' config slices (`['NAME', [path], type]`). */
export async function knownEnvVariables(): Promise<Set<string>> {
  const files = ['src/config/load-config.ts', ...readdirSync(new URL('sources', ROOT)).map((d) => `sources/${d}/config.ts`)];
  const names = new Set<string>(['LESTRADE_CONFIG']);
  for (const file of files) {
    let text = '';
    try { text = readFileSync(new URL(file, ROOT), 'utf8'); } catch { continue; }
    for (const m of text.matchAll(/\['([A-Z][A-Z0-9_]+)',\s*\[/g)) names.add(m[1]!);
  }
  return names;
}
