/**
 * A tool call's key parameter, shown on its timeline line before it is expanded: the PromQL of a
 * query, the pod and namespace of a kubectl call, the command line of bash. Chosen generically from
 * the params: the preferred keys present, in this order (at most three), else the first string param.
 */
const PREFERRED = [
  'query',
  'expression',
  'expr',
  'command',
  'matchers',
  'url',
  'question',
  'kind',
  'pod',
  'name',
  'deployment',
  'container',
  'namespace',
  'selector',
  'repo',
  'path',
  'id',
];

const MAX_KEYS = 3;
export const MAX_KEY_PARAM_CHARS = 120;

/** Control and format characters (newlines, zero-width, bidi overrides) become spaces; runs of spaces one. */
function oneLine(text: string): string {
  return text
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function shown(value: unknown): string | null {
  if (typeof value === 'string') return oneLine(value) || null;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return oneLine(value.join(', ')) || null;
  return null;
}

function clip(text: string): string {
  const chars = [...text];
  return chars.length > MAX_KEY_PARAM_CHARS ? `${chars.slice(0, MAX_KEY_PARAM_CHARS - 1).join('')}…` : text;
}

/**
 * "query=rate(http_requests_total[5m])", "pod=api-1 namespace=prod", "command=kubectl get pods | head";
 * one line, at most MAX_KEY_PARAM_CHARS, empty when no param is text. The caller escapes it (nunjucks).
 */
export function keyParam(params: unknown): string {
  if (!params || typeof params !== 'object' || Array.isArray(params)) return '';
  const entries = Object.entries(params as Record<string, unknown>);
  const pairs: string[] = [];
  for (const key of PREFERRED) {
    const value = Object.hasOwn(params, key) ? shown((params as Record<string, unknown>)[key]) : null;
    if (value !== null) pairs.push(`${key}=${value}`);
    if (pairs.length === MAX_KEYS) break;
  }
  if (pairs.length === 0) {
    const first = entries.find(([, v]) => typeof v === 'string' && shown(v) !== null);
    if (first) pairs.push(`${oneLine(first[0])}=${shown(first[1])}`);
  }
  return clip(pairs.join(' '));
}
