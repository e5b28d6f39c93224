import { readFileSync } from 'node:fs';
import nunjucks from 'nunjucks';
import { parse as parseYaml } from 'yaml';
import { describeZodIssues } from '../errors.js';
import { paramsToZod } from './param-spec.js';
import { runCommand } from './run-command.js';
import type { Prerequisite, Tool, ToolOutput, Toolset } from './types.js';
import { YamlToolsetSchema, type CommandArg, type YamlTool } from './yaml-toolset-schema.js';

const templates = new nunjucks.Environment(null, { autoescape: false, throwOnUndefined: true });

/** Renders a template string with the call's params and the environment; parameter values are never re-rendered. */
export function renderValue(template: string, vars: Record<string, unknown>): string {
  return templates.renderString(template, { ...vars, env: process.env });
}

/** Reads one YAML toolset file. Throws an Error whose message names the bad key. */
export function loadYamlToolset(path: string): Toolset {
  const doc = parseYaml(readFileSync(path, 'utf8'));
  const parsed = YamlToolsetSchema.safeParse(doc);
  if (!parsed.success) throw new Error(`${path}: ${describeZodIssues(parsed.error.issues)}`);
  const def = parsed.data;
  return {
    name: def.name,
    description: def.description,
    origin: path,
    enabled: def.enabled,
    prerequisites: def.prerequisites.map((p): Prerequisite => {
      if (p.env) return { kind: 'env', vars: p.env };
      if (p.command) return { kind: 'command', argv: p.command, timeoutMs: (p.timeoutSeconds ?? 10) * 1000 };
      return { kind: 'http', url: p.http!, headers: p.headers, timeoutMs: (p.timeoutSeconds ?? 5) * 1000 };
    }),
    tools: def.tools.map(buildTool),
  };
}

function buildTool(def: YamlTool): Tool {
  const isCommand = def.command !== undefined;
  const base = { name: def.name, description: def.description, params: paramsToZod(def.params, isCommand), sideEffects: def.sideEffects };
  const noData = (text: string) => text.trim() === '' || def.noDataPatterns.some((p) => text.trim().startsWith(p));
  if (isCommand) {
    return {
      ...base,
      async run(params, ctx): Promise<ToolOutput> {
        if (def.sideEffects && !ctx.approved) return { status: 'error', error: 'refused: side-effecting command without approval' };
        const argv = expandArgs(def.command!, params);
        const out = await runCommand(argv, { signal: ctx.signal, timeoutMs: def.timeoutSeconds * 1000 });
        if (out.exitCode !== 0) return { status: 'error', error: `exit ${out.exitCode}: ${(out.stderr || out.stdout).trim().slice(0, 2000)}` };
        const text = out.truncated ? `${out.stdout}\n…[output capped]` : out.stdout;
        return noData(out.stdout) ? { status: 'no_data', message: out.stderr.trim() || 'no output' } : { status: 'success', data: text };
      },
    };
  }
  const http = def.http!;
  return {
    ...base,
    async run(params, ctx): Promise<ToolOutput> {
      if (def.sideEffects && !ctx.approved) return { status: 'error', error: 'refused: side-effecting request without approval' };
      // Values go into the URL's path percent-encoded, so "../admin" or "?x=" cannot reshape it.
      const url = new URL(renderValue(http.url, encodeValues(params)));
      for (const [k, v] of Object.entries(http.query)) {
        const value = renderValue(v, params);
        if (value !== '') url.searchParams.set(k, value);
      }
      const headers = Object.fromEntries(Object.entries(http.headers).map(([k, v]) => [k, renderValue(v, params)]));
      const res = await fetch(url, {
        method: http.method, headers, signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(def.timeoutSeconds * 1000)]),
        ...(http.body ? { body: renderValue(http.body, params) } : {}),
      });
      const text = await res.text();
      if (!res.ok) return { status: 'error', error: `HTTP ${res.status}: ${text.slice(0, 2000)}` };
      return noData(text) ? { status: 'no_data' } : { status: 'success', data: text };
    },
  };
}

/** Fills command arguments; an optional group appears only when its parameter was given. */
export function expandArgs(args: CommandArg[], params: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const arg of args) {
    if (typeof arg === 'string') {
      out.push(renderValue(arg, params));
      continue;
    }
    const value = Object.hasOwn(params, arg.when) ? params[arg.when] : undefined;
    if (value === undefined || value === false || value === '') continue;
    for (const a of arg.args) out.push(renderValue(a, params));
  }
  return out;
}

function encodeValues(params: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(params).map(([k, v]) => [k, typeof v === 'string' ? encodeURIComponent(v) : v]));
}
