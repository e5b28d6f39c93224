/**
 * What docs/configuration.md must mention: every config key of the assembled zod schema and every
 * environment variable the code reads. Both lists are derived from the code, never kept by hand.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  in?: z.ZodType;
  out?: z.ZodType;
}

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { _zod: { def: Def } })._zod.def;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (let def = defOf(s); ; def = defOf(s)) {
    if (WRAPPERS.has(def.type) && def.innerType) s = def.innerType;
    else if (def.type === 'pipe' && def.in) s = def.in;
    else return s;
  }
}

/**
 * Every key path of a schema: `server.port`; array elements that are objects as `poll[].repo`;
 * record values that are objects as `settings.*.enabled` (the record itself is a key too).
 */
export function configKeyPaths(schema: z.ZodType, prefix = ''): string[] {
  const def = defOf(unwrap(schema));
  const below = (child: z.ZodType | undefined, path: string): string[] => (child ? configKeyPaths(child, path) : []);
  if (def.type === 'object' && def.shape) {
    return Object.entries(def.shape).flatMap(([key, child]) => {
      const path = prefix ? `${prefix}.${key}` : key;
      return [path, ...below(child, path)];
    });
  }
  if (def.type === 'array') return below(def.element, `${prefix}[]`).filter((p) => p !== `${prefix}[]`);
  if (def.type === 'record') return below(def.valueType, `${prefix}.*`).filter((p) => p !== `${prefix}.*`);
  if (def.type === 'union') return [...new Set((def.options ?? []).flatMap((o) => configKeyPaths(o, prefix)))];
  return [];
}

const ENV_PATTERNS = [
  /\[\s*'([A-Z][A-Z0-9_]*)'\s*,\s*\[/g, // an EnvBinding: ['NAME', ['path'], 'type']
  /\b(?:process\.)?env\.([A-Z][A-Z0-9_]*)\b/g, // env.NAME, process.env.NAME
  /\b(?:process\.)?env\[\s*['"`]([A-Z][A-Z0-9_]*)['"`]\s*\]/g, // env['NAME']
];

/** The environment variables read in TypeScript or JavaScript source text. */
export function envVarsIn(text: string): string[] {
  return [...new Set(ENV_PATTERNS.flatMap((re) => [...text.matchAll(re)].map((m) => m[1]!)))];
}

function codeFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : codeFiles(path);
    return /\.(ts|js|mjs)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The environment variables read anywhere in the given folders (src, sources, toolsets, cli, bin). */
export function envVarsReadIn(root: string, folders: readonly string[]): string[] {
  const files = folders.flatMap((f) => codeFiles(join(root, f)));
  return [...new Set(files.flatMap((f) => envVarsIn(readFileSync(f, 'utf8'))))].sort();
}

/** The names (keys or variables) that the doc does not mention in backticks: `name`. */
export function undocumented(names: readonly string[], doc: string): string[] {
  return names.filter((n) => !doc.includes(`\`${n}\``));
}
