import { readFileSync } from 'node:fs';
import nunjucks from 'nunjucks';
import { parse as parseYaml } from 'yaml';
import { describeZodIssues } from '../errors.js';
import { isWellFormed } from '../text.js';
import { filterLines } from './line-filter.js';
import { paramsToZod } from './param-spec.js';
import { runCommand } from './run-command.js';
import type { Prerequisite, Tool, ToolOutput, Toolset } from './types.js';
import { YamlToolsetSchema, type CommandArg, type YamlTool } from './yaml-toolset-schema.js';

const templates = new nunjucks.Environment(null, { autoescape: false, throwOnUndefined: true });

type Env = Record<string, string | undefined>;

/**
 * Renders a template string with the call's params and the environment (`env`: the one the
 * configuration was loaded from, handed down from the composition root); parameter values are never re-rendered.
 */
export function renderValue(template: string, vars: Record<string, unknown>, env: Env): string {
  return templates.renderString(template, { ...vars, env });
}

/**
 * Reads one YAML toolset file; its templates see `env` as `env`. Throws an Error whose message names the bad key.
 * `commandEnv`: variables its commands (and command prerequisites) run with on top of the process's, one instance's
 * view (KUBECONFIG naming its context).
 */
export function loadYamlToolset(path: string, env: Env = process.env, commandEnv?: Record<string, string>): Toolset {
  const doc: unknown = parseYaml(readFileSync(path, 'utf8'));
  const parsed = YamlToolsetSchema.safeParse(doc);
  if (!parsed.success) throw new Error(`${path}: ${describeZodIssues(parsed.error.issues)}`);
  const def = parsed.data;
  return {
    name: def.name,
    description: def.description,
    ...(def.instructions ? { instructions: def.instructions } : {}),
    origin: path,
    enabled: def.enabled,
    prerequisites: def.prerequisites.map((p): Prerequisite => {
      if (p.env) return { kind: 'env', vars: p.env };
      if (p.command) {
        const timeoutMs = (p.timeoutSeconds ?? 10) * 1000;
        return {
          kind: 'command',
          argv: p.command,
          timeoutMs,
          explain: p.explain,
          ...(commandEnv ? { env: commandEnv } : {}),
        };
      }
      return { kind: 'http', url: p.http!, headers: p.headers, timeoutMs: (p.timeoutSeconds ?? 5) * 1000 };
    }),
    tools: def.tools.map((t) => buildTool(t, env, commandEnv)),
    approvalRequired: def.approvalRequired,
  };
}

function buildTool(def: YamlTool, env: Env, commandEnv?: Record<string, string>): Tool {
  const isCommand = def.command !== undefined;
  const base = {
    name: def.name,
    description: def.description,
    params: paramsToZod(def.params, isCommand),
    sideEffects: def.sideEffects,
    vouchesForLinks: def.vouchesForLinks,
  };
  const noData = (text: string) => text.trim() === '' || def.noDataPatterns.some((p) => text.trim().startsWith(p));
  return { ...base, run: isCommand ? commandRun(def, env, noData, commandEnv) : httpRun(def, env, noData) };
}

type Run = Tool['run'];

/** A command tool: its argv expanded from the params, run without a shell. */
function commandRun(
  def: YamlTool,
  env: Env,
  noData: (text: string) => boolean,
  commandEnv?: Record<string, string>,
): Run {
  const processEnv = commandEnv ? () => ({ ...process.env, ...commandEnv }) : () => undefined;
  return async (params, ctx): Promise<ToolOutput> => {
    if (def.sideEffects && !ctx.approved)
      return { status: 'error', error: 'refused: side-effecting command without approval' };
    const unsendable = unsendableParam(params, true);
    if (unsendable) return { status: 'error', error: unsendable };
    const argv = expandArgs(def.command!, params, env);
    const out = await runCommand(argv, { signal: ctx.signal, timeoutMs: def.timeoutSeconds * 1000, env: processEnv() });
    if (out.exitCode !== 0)
      return {
        status: 'error',
        error: `exit ${out.exitCode}: ${(out.stderr || out.stdout).trim().slice(0, 2000)}`,
      };
    const narrowed = def.lines ? filterLines(out.stdout, def.lines, params) : { text: out.stdout };
    if ('error' in narrowed) return { status: 'error', error: `invalid arguments: ${narrowed.error}` };
    const text = out.truncated ? `${narrowed.text}\n…[output capped]` : narrowed.text;
    if (def.lines && narrowed.text.trim() === '' && out.stdout.trim() !== '')
      return { status: 'no_data', message: 'no line matched the filter' };
    return noData(narrowed.text)
      ? { status: 'no_data', message: out.stderr.trim() || 'no output' }
      : { status: 'success', data: text };
  };
}

/** An HTTP tool: URL, query, headers and body rendered from the params (URL values percent-encoded). */
function httpRun(def: YamlTool, env: Env, noData: (text: string) => boolean): Run {
  const http = def.http!;
  const inUrl = Object.keys(def.params).filter((name) => referencedIn(http.url, name));
  return async (params, ctx): Promise<ToolOutput> => {
    if (def.sideEffects && !ctx.approved)
      return { status: 'error', error: 'refused: side-effecting request without approval' };
    const unsendable = unsendableParam(params, false);
    if (unsendable) return { status: 'error', error: unsendable };
    // Values go into the URL percent-encoded, so "/", "?" or "#" cannot reshape it; a value that
    // is (or decodes to) a dot segment would still move the path, so it is refused.
    const dotted = inUrl.find((name) => typeof params[name] === 'string' && hasDotSegment(params[name]));
    const rendered = renderValue(http.url, encodeValues(params), env);
    if (dotted || pathHasDotSegment(rendered)) {
      return {
        status: 'error',
        error: `refused: parameter ${dotted ?? inUrl.join(', ')} would put a dot segment (. or ..) into the URL path`,
      };
    }
    const url = new URL(rendered);
    for (const [k, v] of Object.entries(http.query)) {
      const value = renderValue(v, params, env);
      if (value !== '') url.searchParams.set(k, value);
    }
    const headers = requestHeaders(http, params, env);
    const body = requestBody(http.body, params, env);
    const res = await fetch(url, {
      method: http.method,
      headers,
      signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(def.timeoutSeconds * 1000)]),
      ...(body !== undefined ? { body } : {}),
    });
    const text = await res.text();
    if (!res.ok) return { status: 'error', error: `HTTP ${res.status}: ${text.slice(0, 2000)}` };
    return noData(text) ? { status: 'no_data' } : { status: 'success', data: text };
  };
}

/** The configured headers rendered; a JSON body (not a string) gets a content-type unless one is configured. */
function requestHeaders(
  http: NonNullable<YamlTool['http']>,
  params: Record<string, unknown>,
  env: Env,
): Record<string, string> {
  const headers: Record<string, string> = Object.fromEntries(
    Object.entries(http.headers).map(([k, v]) => [k, renderValue(v, params, env)]),
  );
  const json = http.body !== undefined && typeof http.body !== 'string';
  if (json && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type'))
    headers['content-type'] = 'application/json';
  return headers;
}

/** Fills command arguments; an optional group appears only when its parameter was given. */
export function expandArgs(args: CommandArg[], params: Record<string, unknown>, env: Env = process.env): string[] {
  const out: string[] = [];
  for (const arg of args) {
    if (typeof arg === 'string') {
      out.push(renderValue(arg, params, env));
      continue;
    }
    const value = Object.hasOwn(params, arg.when) ? params[arg.when] : undefined;
    if (value === undefined || value === false || value === '') continue;
    for (const a of arg.args) out.push(renderValue(a, params, env));
  }
  return out;
}

/**
 * A value that cannot reach its target exactly: a lone UTF-16 surrogate has no UTF-8 form (it
 * would arrive as U+FFFD), and an argument cannot hold a NUL byte.
 */
function unsendableParam(params: Record<string, unknown>, forCommand: boolean): string | null {
  for (const [name, v] of Object.entries(params)) {
    if (typeof v !== 'string') continue;
    if (!isWellFormed(v)) return `refused: parameter ${name} is not well-formed Unicode (a lone surrogate)`;
    if (forCommand && v.includes('\0')) return `refused: parameter ${name} contains a NUL character`;
  }
  return null;
}

/** Whether a template mentions the parameter inside {{ }} or {% %}. */
function referencedIn(template: string, name: string): boolean {
  const word = new RegExp(`(^|[^A-Za-z0-9_])${name}($|[^A-Za-z0-9_])`);
  return [...template.matchAll(/\{\{([\s\S]*?)\}\}|\{%([\s\S]*?)%\}/g)].some((m) => word.test(m[1] ?? m[2] ?? ''));
}

/** Percent-decodes until nothing changes (a server or proxy may decode more than once). */
function fullyDecoded(s: string): string {
  let out = s;
  for (let i = 0; i < 8; i++) {
    let next: string;
    try {
      next = decodeURIComponent(out);
    } catch {
      return out;
    }
    if (next === out) return out;
    out = next;
  }
  return out;
}

const isDot = (segment: string) => segment === '.' || segment === '..';

/** "..", ".", "%2e%2e", "a/../b", "..\\x": anything that, decoded, holds a dot segment. */
function hasDotSegment(value: string): boolean {
  return fullyDecoded(value).split(/[/\\]/).some(isDot);
}

/** Dot segments in the rendered URL's path, before new URL() would resolve them away. */
function pathHasDotSegment(url: string): boolean {
  const path = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*([^?#]*)/i.exec(url)?.[1] ?? '';
  return path.split('/').some((segment) => isDot(fullyDecoded(segment)));
}

/** A JSON body from its YAML form: "{{ p }}" alone is p's typed value (omitted when not given), other strings render as text. */
/** The request's body: none, the configured text as it is, or the configured JSON rendered with the call's values. */
function requestBody(body: unknown, params: Record<string, unknown>, env: Env): string | undefined {
  if (body === undefined || typeof body === 'string') return body;
  return JSON.stringify(renderJson(body, params, env));
}

function renderJson(node: unknown, params: Record<string, unknown>, env: Env): unknown {
  if (typeof node === 'string') {
    const only = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/.exec(node);
    if (only) return Object.hasOwn(params, only[1]!) ? params[only[1]!] : undefined;
    return renderValue(node, params, env);
  }
  if (Array.isArray(node)) return node.map((n) => renderJson(n, params, env) ?? null);
  if (node && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node)
        .map(([k, v]) => [k, renderJson(v, params, env)])
        .filter(([, v]) => v !== undefined),
    );
  }
  return node;
}

function encodeValues(params: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? encodeURIComponent(v) : v]),
  );
}
