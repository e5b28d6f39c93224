import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { describeZodIssues, InputError } from '../../src/errors.js';

/** Where a HolmesGPT tool name lands among Lestrade's tools, and how its parameters are renamed. */
export interface ToolAlias {
  tool: string;
  params: Record<string, string>;
}
export type ToolAliases = Map<string, ToolAlias>;

const AliasFileSchema = z.record(
  z.string().min(1),
  z.strictObject({ tool: z.string().min(1), params: z.record(z.string(), z.string()).default({}) }),
);

export const BUILTIN_ALIASES_FILE = fileURLToPath(new URL('./tool-aliases.yaml', import.meta.url));

/**
 * The built-in aliases, then each existing suite file's entries over them (later files win). The built-in file
 * must be there: a build that left it behind would offer HolmesGPT's names as tools of their own and score the
 * cases wrong, so its absence stops the run (a suite's own file is optional).
 */
export function loadAliases(files: string[], builtin = BUILTIN_ALIASES_FILE): ToolAliases {
  if (!existsSync(builtin))
    throw new Error(
      `${builtin} is missing: the built-in tool-name aliases ship beside cli/eval/tool-aliases.ts (npm run build copies ` +
        'them into dist/); reinstall or rebuild Lestrade',
    );
  const aliases: ToolAliases = new Map();
  for (const file of [builtin, ...files]) {
    if (!existsSync(file)) continue;
    const parsed = AliasFileSchema.safeParse(parseYaml(readFileSync(file, 'utf8')) ?? {});
    if (!parsed.success) {
      throw new InputError(
        '',
        `${file}: ${describeZodIssues(parsed.error.issues)} (expected "holmes_name: {tool, params}")`,
      );
    }
    for (const [name, alias] of Object.entries(parsed.data)) aliases.set(name, alias);
  }
  return aliases;
}

/** A mock's match_params in our tool's words: keys renamed, and only the keys our tool takes. */
export function renameParams(
  params: Record<string, unknown> | null,
  alias: ToolAlias | undefined,
  known: ReadonlySet<string>,
): Record<string, unknown> | null {
  if (!params) return null;
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(params)) {
    const name = alias?.params[k] ?? k;
    if (known.has(name)) out[name] = v;
  }
  return out;
}
