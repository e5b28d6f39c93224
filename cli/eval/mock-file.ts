import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolOutput } from '../../src/tools/types.js';

/**
 * One recorded tool output, in HolmesGPT's mock file format: line 1 a JSON header
 * `{"toolset_name", "tool_name", "match_params"}`; then, in the current format, line 2 the
 * structured result (`{"status", "error", ...}`) and the output from line 3; in the older format
 * the output from line 2 (`stdout:` / `stderr:` sections, or plain text).
 */
export interface MockEntry {
  toolset: string;
  tool: string;
  /** null matches any parameters. */
  matchParams: Record<string, unknown> | null;
  output: ToolOutput;
  /** The file's name inside the case folder. */
  file: string;
}

interface Header {
  toolset_name?: unknown;
  tool_name?: unknown;
  match_params?: unknown;
}

/** The mock a file holds, or null when its first line is not a mock header (not every .txt is a mock). */
export function parseMockFile(text: string, file: string): MockEntry | null {
  const lines = text.split('\n');
  const header = parseObject(lines[0] ?? '') as Header | null;
  if (!header || typeof header.tool_name !== 'string' || header.tool_name === '') return null;
  const params = header.match_params;
  const matchParams =
    params && typeof params === 'object' && !Array.isArray(params) ? (params as Record<string, unknown>) : null;
  const structured = parseObject(lines[1] ?? '');
  const body = (structured ? lines.slice(2) : lines.slice(1)).join('\n');
  return {
    toolset: typeof header.toolset_name === 'string' ? header.toolset_name : '',
    tool: header.tool_name,
    matchParams,
    output: toOutput(structured, body),
    file,
  };
}

function toOutput(structured: Record<string, unknown> | null, body: string): ToolOutput {
  const status = structured?.status;
  const error = typeof structured?.error === 'string' ? structured.error : null;
  if (status === 'error' || status === 'failed') return { status: 'error', error: error ?? body.trim() };
  if (status === 'no_data') return { status: 'no_data', ...(body.trim() ? { data: body } : {}) };
  return { status: 'success', data: body };
}

function parseObject(line: string): Record<string, unknown> | null {
  const t = line.trim();
  if (!t.startsWith('{')) return null;
  try {
    const v: unknown = JSON.parse(t);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    // Not JSON: the line is output (older format), not a header.
    return null;
  }
}

/** Every mock in a case folder (*.txt files with a mock header), sorted by file name so matching is stable. */
export function loadMocks(folder: string): MockEntry[] {
  return readdirSync(folder)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .map((f) => parseMockFile(readFileSync(join(folder, f), 'utf8'), f))
    .filter((m): m is MockEntry => m !== null);
}

/**
 * Matches any value the call gives, in a case that opts in (`lestrade_wildcards: true` in test_case.yaml): a
 * Lestrade extension for free-form PromQL or LogQL a case cannot predict. HolmesGPT reads it literally.
 */
export const ANY_VALUE = '*';

/**
 * HolmesGPT's rule: every key of the mock's match_params is in the call with the same value (none:
 * any call); with wildcards, a value of "*" only asks that the call gives the key.
 */
export function paramsMatch(
  matchParams: Record<string, unknown> | null,
  actual: Record<string, unknown>,
  wildcards = false,
): boolean {
  if (!matchParams) return true;
  return Object.entries(matchParams).every(([k, v]) => {
    // A recorded null is a parameter the model sent empty: a call that leaves it out is the same call.
    if (v === null) return !Object.hasOwn(actual, k) || actual[k] === null;
    return Object.hasOwn(actual, k) && ((wildcards && v === ANY_VALUE) || sameValue(actual[k], v));
  });
}

/** Primitives compare by their text ("5" matches 5: models send numbers as strings and back); the rest as JSON. */
function sameValue(a: unknown, b: unknown): boolean {
  const text = (v: unknown) =>
    typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? `${v}` : null;
  const [x, y] = [text(a), text(b)];
  if (x === null || y === null) return JSON.stringify(a) === JSON.stringify(b);
  return x === y;
}

/** The file name HolmesGPT would give a mock of this call (tool name, then the sorted parameter values). */
export function mockFileName(tool: string, params: Record<string, unknown>): string {
  const values = Object.keys(params)
    .sort()
    .map((k) => String(params[k]))
    .join('_');
  const safe = `_${values}`
    .replace(/[^\w.-]/g, '_')
    .replace(/__+/g, '_')
    .replace(/^[_.]+|[_.]+$/g, '');
  return `${tool}${safe ? `_${safe}` : ''}.txt`.slice(0, 200);
}

/** A mock file's text: the header, the structured result line, then the output. */
export function formatMockFile(entry: Omit<MockEntry, 'file'>): string {
  const header = { toolset_name: entry.toolset, tool_name: entry.tool, match_params: entry.matchParams };
  const o = entry.output;
  const structured = {
    schema_version: 'robusta:v1.0.0',
    status: o.status,
    error: o.status === 'error' ? o.error : null,
    return_code: o.status === 'error' ? 1 : 0,
    params: entry.matchParams,
  };
  return `${JSON.stringify(header)}\n${JSON.stringify(structured)}\n${bodyOf(o)}`;
}

function bodyOf(o: ToolOutput): string {
  if (o.status === 'error') return '';
  return typeof o.data === 'string' ? o.data : JSON.stringify(o.data ?? '', null, 2);
}
