import { z } from 'zod';
import type { Tool, ToolOutput, Toolset } from '../../src/tools/types.js';
import { paramsMatch, type MockEntry } from './mock-file.js';
import { callFits, renameParams, type ToolAliases } from './tool-aliases.js';

/** One call the model made during a case, and the mock that answered it (null: none did). */
export interface MockedCall {
  tool: string;
  params: Record<string, unknown>;
  mock: string | null;
}

export interface MockedToolsets {
  /** What the model is offered: our tools answering from the mocks, and tools inferred from mocks we lack. */
  tools: Tool[];
  toolsets: Array<{ name: string; description: string; instructions?: string }>;
  /** Our toolsets the case (or the configuration) switched off: the prompt lists them as the service would. */
  unavailable: Array<{ name: string; reason: string }>;
  toolsetOf: Map<string, string>;
  approvalRequired: string[];
  /** Filled as the case runs. */
  calls: MockedCall[];
}

/** How a case narrows what is offered (beyond whole toolsets) and matched. */
export interface MockOptions {
  /** "*" in match_params matches any value (the case opted in). */
  wildcards?: boolean;
  /** Our tools switched off (their HolmesGPT toolset was). */
  offTools?: string[];
  /** Toolset names, as mocks' toolset_name give them, switched off: their recorded tools are not offered. */
  offRecorded?: string[];
}

/** A case's `toolsets:` override, as in HolmesGPT: `{name: {enabled: bool}}`. */
export type ToolsetOverrides = Record<string, { enabled?: boolean } | undefined>;

/**
 * Lestrade's own toolsets (those on by default, or switched by the case) with every tool's
 * execution replaced by the case's recorded outputs, plus a tool for each mocked tool we do not
 * have (its schema inferred from the mocks' match_params). Names, descriptions, schemas, side
 * effects and verdicts stay the real ones, so the executor's validation and approval policy apply.
 */
export function mockToolsets(
  candidates: Toolset[],
  mocks: MockEntry[],
  aliases: ToolAliases,
  overrides: ToolsetOverrides = {},
  opts: MockOptions = {},
): MockedToolsets {
  const calls: MockedCall[] = [];
  const wildcards = opts.wildcards ?? false;
  const offTools = new Set(opts.offTools ?? []);
  const offRecorded = new Set(opts.offRecorded ?? []);
  const on = candidates
    .filter((ts) => overrides[ts.name]?.enabled ?? ts.enabled)
    .map((ts) => ({ ...ts, tools: ts.tools.filter((t) => !offTools.has(t.name)) }))
    .filter((ts) => ts.tools.length > 0);
  const ours = new Map(on.flatMap((ts) => ts.tools.map((t) => [t.name, t] as const)));
  const answer = answerer(mocks, { aliases, ours, wildcards }, calls);
  const tools: Tool[] = [];
  const toolsetOf = new Map<string, string>();
  for (const ts of on) {
    for (const t of ts.tools) {
      tools.push({ ...t, run: (params) => Promise.resolve(answer(t.name, params)) });
      toolsetOf.set(t.name, ts.name);
    }
  }
  const inferred = inferTools(
    mocks.filter(
      (m) =>
        !ours.has(aliases.get(m.tool)?.tool ?? m.tool) &&
        !ours.has(m.tool) &&
        !offRecorded.has(m.toolset) &&
        !offTools.has(aliases.get(m.tool)?.tool ?? m.tool),
    ),
    answer,
  );
  for (const { tool, toolset } of inferred) {
    tools.push(tool);
    toolsetOf.set(tool.name, toolset);
  }
  const inferredSets = [...new Set(inferred.map((i) => i.toolset))].map((name) => ({
    name,
    description: `tools recorded in this case (${inferred.filter((i) => i.toolset === name).length})`,
  }));
  return {
    tools,
    toolsets: [
      ...on.map(({ name, description, instructions }) => ({ name, description, instructions })),
      ...inferredSets,
    ],
    unavailable: candidates
      .filter((ts) => !on.some((o) => o.name === ts.name))
      .map((ts) => ({ name: ts.name, reason: 'switched off in configuration' })),
    toolsetOf,
    approvalRequired: on.flatMap((ts) => ts.approvalRequired ?? []),
    calls,
  };
}

type Answer = (tool: string, params: Record<string, unknown>) => ToolOutput;

/** What decides which mock answers a call. */
export interface MatchContext {
  aliases: ToolAliases;
  /** Our tools on in this case, by name. */
  ours: ReadonlyMap<string, Tool>;
  /** The case opted in to "*" in match_params meaning any value (else it is a literal, as in HolmesGPT). */
  wildcards: boolean;
}

/**
 * How specific a mock is for this call of our tool, when it answers it (else null): the number of its
 * match_params, in our tool's words. A mock recorded under a HolmesGPT name answers only calls of the tool it is
 * an alias of, only calls that tool could have made (callFits), and only with the same values of the parameters
 * some alias of that tool fixes (previous, all_containers: kubectl_logs's mock never answers a previous-logs
 * call); any other mock only calls of its own tool.
 */
export function mockAnswers(
  m: MockEntry,
  tool: string,
  params: Record<string, unknown>,
  ctx: MatchContext,
): number | null {
  const alias = ctx.aliases.get(m.tool);
  if (alias && ctx.ours.has(alias.tool)) {
    if (alias.tool !== tool || !callFits(m.tool, alias, params)) return null;
    const keys = new Set(Object.keys(ctx.ours.get(tool)!.params.shape));
    const wanted = renameParams(m.matchParams, alias, keys);
    const fixedKeys = discriminators(ctx.aliases, tool);
    if (fixedKeys.some((k) => given(wanted?.[k]) !== given(params[k]))) return null;
    return paramsMatch(wanted, params, ctx.wildcards) ? Object.keys(wanted ?? {}).length : null;
  }
  if (m.tool !== tool || !paramsMatch(m.matchParams, params, ctx.wildcards)) return null;
  return Object.keys(m.matchParams ?? {}).length;
}

/** The parameters of our tool that some alias fixes (what tells kubectl_previous_logs from kubectl_logs). */
function discriminators(aliases: ToolAliases, tool: string): string[] {
  return [...new Set([...aliases.values()].filter((a) => a.tool === tool).flatMap((a) => Object.keys(a.fixed)))];
}

/** A parameter's value, with not given, null and false the same (a boolean flag left off). */
function given(v: unknown): string {
  return v === undefined || v === null || v === false ? '' : JSON.stringify(v);
}

/** The mock that answers the call: the most specific of those that do (mockAnswers), the first by file name of equals. */
function answerer(mocks: MockEntry[], ctx: MatchContext, calls: MockedCall[]): Answer {
  return (tool, params) => {
    let hit: MockEntry | undefined;
    let best = -1;
    for (const m of mocks) {
      const specific = mockAnswers(m, tool, params, ctx);
      if (specific !== null && specific > best) [hit, best] = [m, specific];
    }
    calls.push({ tool, params, mock: hit?.file ?? null });
    if (hit) return hit.output;
    return {
      status: 'error',
      error:
        `no recorded output for ${tool} ${JSON.stringify(params)} in this eval case: add a mock file whose first ` +
        `line is {"toolset_name": "…", "tool_name": "${tool}", "match_params": ${JSON.stringify(params)}}`,
    };
  };
}

/** A tool per mocked name we lack: every match_params key a parameter (required when every mock has it). */
function inferTools(mocks: MockEntry[], answer: Answer): Array<{ tool: Tool; toolset: string }> {
  const byName = new Map<string, MockEntry[]>();
  for (const m of mocks) byName.set(m.tool, [...(byName.get(m.tool) ?? []), m]);
  return [...byName].map(([name, entries]) => {
    const shape: Record<string, z.ZodType> = {};
    for (const m of entries) {
      for (const [k, v] of Object.entries(m.matchParams ?? {})) {
        if (shape[k]) continue;
        const type = typeOf(v);
        // Required when every mock gives it a value (a recorded null is a parameter the model sent empty).
        const everywhere = entries.every(
          (e) => e.matchParams && e.matchParams[k] !== null && Object.hasOwn(e.matchParams, k),
        );
        shape[k] = everywhere ? type : type.optional();
      }
    }
    const toolset = entries[0]!.toolset || 'recorded';
    const tool: Tool = {
      name,
      description: `${name} (toolset ${toolset}; its parameters are inferred from recorded calls)`,
      params: z.looseObject(shape),
      run: (params) => Promise.resolve(answer(name, params)),
    };
    return { tool, toolset };
  });
}

function typeOf(v: unknown): z.ZodType {
  if (typeof v === 'number') return z.coerce.number();
  if (typeof v === 'boolean') return z.boolean();
  if (typeof v === 'string') return z.string();
  return z.unknown();
}
