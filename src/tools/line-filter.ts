/**
 * What a YAML tool's `lines:` names: parameters whose values narrow the output line by line, applied
 * after the command or request ran (kubectl logs has no filter of its own, as HolmesGPT's fetch_pod_logs
 * has). `filter` keeps lines matching, `exclude` drops lines matching, then `limit` keeps the last N.
 */
export interface LineFilterParams {
  filter?: string;
  exclude?: string;
  limit?: string;
}

/** A line is matched on its first characters only: a pattern's cost stays bounded on a huge line. */
export const MATCHED_CHARS = 10_000;
const MAX_PATTERN = 500;

/**
 * A pattern as HolmesGPT's log tools take it: a regex, case-insensitive; text that is not a valid
 * regex is matched as plain text. Patterns that can backtrack without bound (a quantified group,
 * a back-reference) are refused with the reason, so no model-written pattern can stall the worker.
 */
export function linePattern(pattern: string, param: string): RegExp | { error: string } {
  if (pattern.length > MAX_PATTERN) return { error: `${param}: at most ${MAX_PATTERN} characters` };
  if (/\)[*+{]|\)\?[*+]|\\[1-9]|\\k</.test(pattern)) {
    return {
      error:
        `${param}: a quantified group or a back-reference can make matching slow; ` +
        'use alternatives (a|b) or plain text instead',
    };
  }
  try {
    return new RegExp(pattern, 'i');
  } catch {
    return new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
  }
}

/** The output narrowed by the call's values of the named parameters; an error names the parameter at fault. */
export function filterLines(
  text: string,
  names: LineFilterParams,
  params: Record<string, unknown>,
): { text: string } | { error: string } {
  const value = (key: keyof LineFilterParams): unknown => {
    const name = names[key];
    return name !== undefined && Object.hasOwn(params, name) ? params[name] : undefined;
  };
  const [filter, exclude, limit] = [value('filter'), value('exclude'), value('limit')];
  if (filter === undefined && exclude === undefined && limit === undefined) return { text };
  const keep = typeof filter === 'string' && filter !== '' ? linePattern(filter, names.filter!) : null;
  const drop = typeof exclude === 'string' && exclude !== '' ? linePattern(exclude, names.exclude!) : null;
  if (keep && 'error' in keep) return keep;
  if (drop && 'error' in drop) return drop;
  let lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (keep) lines = lines.filter((l) => keep.test(l.slice(0, MATCHED_CHARS)));
  if (drop) lines = lines.filter((l) => !drop.test(l.slice(0, MATCHED_CHARS)));
  if (typeof limit === 'number' && limit > 0) lines = lines.slice(-limit);
  return { text: lines.length ? `${lines.join('\n')}\n` : '' };
}
