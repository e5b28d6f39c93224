import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { describeZodIssues, InputError } from '../../src/errors.js';

/**
 * Where a HolmesGPT tool name lands among Lestrade's tools: our tool, each of its parameters' names in
 * ours, and the values of ours that make our tool that one (`fixed`: kubectl_previous_logs is kubectl_logs
 * with previous: true).
 */
export interface ToolAlias {
  tool: string;
  params: Record<string, string>;
  fixed: Record<string, unknown>;
}
export type ToolAliases = Map<string, ToolAlias>;

const AliasFileSchema = z.record(
  z.string().min(1),
  z.strictObject({
    tool: z.string().min(1),
    params: z.record(z.string(), z.string()).default({}),
    fixed: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
  }),
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

/**
 * A mock's match_params in our tool's words: keys renamed, only the keys our tool takes, and the alias's
 * fixed values (null stays null: any call).
 */
export function renameParams(
  params: Record<string, unknown> | null,
  alias: ToolAlias | undefined,
  known: ReadonlySet<string>,
): Record<string, unknown> | null {
  if (!params) return alias && Object.keys(alias.fixed).length ? { ...alias.fixed } : null;
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [k, v] of Object.entries(params)) {
    const name = alias?.params[k] ?? k;
    if (known.has(name)) out[name] = v;
  }
  return Object.assign(out, alias?.fixed ?? {});
}

/** The recorded keys our tool has no parameter for (their values cannot reach it): the replay names them. */
export function droppedParams(
  params: Record<string, unknown> | null,
  alias: ToolAlias | undefined,
  known: ReadonlySet<string>,
): string[] {
  return Object.keys(params ?? {}).filter((k) => !known.has(alias?.params[k] ?? k));
}

/**
 * Whether a call of our tool is one the aliased HolmesGPT tool could have made, so that only its mocks answer
 * it: every parameter the call sets is one the alias maps onto, or fixes. kubectl_get {kind, namespace} is
 * kubectl_get_by_kind_in_namespace's call, never kubectl_get_by_name's; with name, the reverse. An alias of the
 * same name as our tool only renames (our own recorded mocks use that name too), and one that lists neither params
 * nor fixed only renames the tool: both take any call.
 */
export function callFits(name: string, alias: ToolAlias, params: Record<string, unknown>): boolean {
  const renamesOnly = Object.keys(alias.params).length === 0 && Object.keys(alias.fixed).length === 0;
  if (name === alias.tool || renamesOnly) return true;
  const takes = new Set([...Object.values(alias.params), ...Object.keys(alias.fixed)]);
  return Object.entries(params).every(([k, v]) => v === undefined || v === false || takes.has(k));
}
