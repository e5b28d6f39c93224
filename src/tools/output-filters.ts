import { z } from 'zod';
import { describeZodIssues } from '../errors.js';

/**
 * Optional parameters every tool gets, applied by the runtime to the tool's output so the model
 * can narrow a result that was too large: JSON fields first, then matching lines, then head or tail.
 * The grep is plain text (case-insensitive, "|" separates alternatives): no regex, so no pattern
 * can make it slow.
 */
export const FilterSchema = z.strictObject({
  output_grep: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe('keep only output lines containing this text (case-insensitive; a|b for either)'),
  output_head: z.int().min(1).max(100_000).optional().describe('keep only the first N lines of the output'),
  output_tail: z.int().min(1).max(100_000).optional().describe('keep only the last N lines of the output'),
  output_fields: z
    .array(z.string().min(1).max(200))
    .min(1)
    .max(50)
    .optional()
    .describe('for JSON output: keep only these fields (dotted paths, e.g. "metadata.name"); arrays are mapped'),
});
export type Filters = z.infer<typeof FilterSchema>;

export const FILTER_KEYS = Object.keys(FilterSchema.shape) as Array<keyof Filters>;

/** Takes the filter parameters out of a call's arguments (unless the tool declares a parameter of that name itself). */
export function splitFilters(
  raw: Record<string, unknown>,
  ownParams: Record<string, unknown>,
): { args: Record<string, unknown>; filters: Filters } | { error: string } {
  const args: Record<string, unknown> = Object.assign(Object.create(null) as object, raw);
  const picked: Record<string, unknown> = {};
  for (const key of FILTER_KEYS) {
    if (!Object.hasOwn(raw, key) || Object.hasOwn(ownParams, key)) continue;
    picked[key] = raw[key];
    delete args[key];
  }
  const parsed = FilterSchema.safeParse(picked);
  return parsed.success
    ? { args, filters: parsed.data }
    : { error: `invalid arguments: ${describeZodIssues(parsed.error.issues)}` };
}

export function hasFilters(f: Filters): boolean {
  return FILTER_KEYS.some((k) => f[k] !== undefined);
}

/** Applies the filters to a tool's output (text or data). */
export function applyFilters(data: unknown, f: Filters): unknown {
  let out = data;
  if (f.output_fields) out = selectFields(out, f.output_fields);
  if (f.output_grep === undefined && f.output_head === undefined && f.output_tail === undefined) return out;
  let lines = (typeof out === 'string' ? out : JSON.stringify(out, null, 1)).split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (f.output_grep) {
    const needles = f.output_grep.toLowerCase().split('|').filter(Boolean);
    lines = lines.filter((l) => needles.some((n) => l.toLowerCase().includes(n)));
  }
  if (f.output_head !== undefined) lines = lines.slice(0, f.output_head);
  if (f.output_tail !== undefined) lines = lines.slice(-f.output_tail);
  return lines.length ? `${lines.join('\n')}\n` : '';
}

function selectFields(data: unknown, paths: string[]): unknown {
  let value = data;
  if (typeof data === 'string') {
    try {
      value = JSON.parse(data);
    } catch {
      return `${data}\n…[output_fields ignored: the output is not JSON]`;
    }
  }
  const pick = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(pick) : Object.fromEntries(paths.map((p) => [p, at(v, p.split('.'))]));
  return pick(value);
}

/** A dotted path, mapping over arrays met on the way; undefined where it leads nowhere. */
function at(value: unknown, path: string[]): unknown {
  if (path.length === 0) return value;
  if (Array.isArray(value)) return value.map((v) => at(v, path));
  if (!value || typeof value !== 'object') return undefined;
  const [key, ...rest] = path;
  return Object.hasOwn(value, key!) ? at((value as Record<string, unknown>)[key!], rest) : undefined;
}
