import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../log.js';
import { firstFailure } from './check-prerequisites.js';
import type { Tool, Toolset, ToolsetStatus } from './types.js';
import { loadYamlToolset } from './yaml-toolset.js';

export interface ToolsetSettings {
  [name: string]: { enabled?: boolean; approvalRequired?: string[]; instructions?: string } | undefined;
}

export interface ResolvedToolsets {
  statuses: ToolsetStatus[];
  /** Toolsets whose prerequisites passed: the only ones the model sees. */
  enabled: Toolset[];
  tools: Tool[];
  /** Tools that need a human's approval for every call: the toolsets' own lists plus the settings'. */
  approvalRequired: string[];
  /** The enabled toolsets' tools now (some change while they run). */
  currentTools: () => Tool[];
  /** The toolset of a tool now (the metrics' label). */
  toolsetOf: { get(tool: string): string | undefined };
  /** The statuses with what the enabled toolsets say of their health now (a server dropped: "failed"). */
  statusesNow: () => ToolsetStatus[];
  /** Releases every toolset's connections and processes. */
  close: () => Promise<void>;
}

const toolsOf = (ts: Toolset): Tool[] => ts.currentTools?.() ?? ts.tools;

/** Loads every *.yaml / *.yml toolset in the folders (their templates see `env`); a file that fails to load is reported, not fatal. */
export function loadYamlToolsets(
  dirs: string[],
  env: Record<string, string | undefined> = process.env,
): { toolsets: Toolset[]; failures: ToolsetStatus[] } {
  const toolsets: Toolset[] = [];
  const failures: ToolsetStatus[] = [];
  for (const dir of dirs) {
    let files: string[];
    try {
      files = readdirSync(dir)
        .filter((f) => /\.ya?ml$/.test(f))
        .sort();
    } catch (err) {
      failures.push({
        name: dir,
        origin: dir,
        state: 'failed',
        reason: `cannot read folder: ${(err as Error).message}`,
        tools: [],
      });
      continue;
    }
    for (const file of files) {
      const path = join(dir, file);
      try {
        toolsets.push(loadYamlToolset(path, env));
      } catch (err) {
        failures.push({
          name: file.replace(/\.ya?ml$/, ''),
          origin: path,
          state: 'failed',
          reason: (err as Error).message,
          tools: [],
        });
      }
    }
  }
  return { toolsets, failures };
}

/**
 * Decides which toolsets reach the model: switched on (by default or settings), prerequisites
 * passing, and tool names unique. Everything else is reported with why. A toolset whose tools change
 * while it runs (an MCP server's list) is held to the same: a tool it adds later under a name another
 * toolset already has is dropped (logged once), and the name's owner keeps it.
 */
export async function resolveToolsets(
  candidates: Toolset[],
  settings: ToolsetSettings,
  env: Record<string, string | undefined>,
  failures: ToolsetStatus[] = [],
  log?: Logger,
): Promise<ResolvedToolsets> {
  const checked = await Promise.all(
    candidates.map(async (ts): Promise<ToolsetStatus> => {
      const setting = Object.hasOwn(settings, ts.name) ? settings[ts.name] : undefined;
      if (!(setting?.enabled ?? ts.enabled))
        return { ...statusBase(ts), state: 'disabled', reason: 'switched off in configuration' };
      const failure = await firstFailure(ts.prerequisites, env);
      // After the prerequisites: a toolset may learn its tools there (an MCP server lists them).
      const base = statusBase(ts);
      if (!failure) return { ...base, state: 'enabled' };
      return failure.failed
        ? { ...base, state: 'failed', reason: failure.reason }
        : { ...base, state: 'disabled', reason: `prerequisite not met: ${failure.reason}` };
    }),
  );
  const statuses = [...checked, ...failures];
  const enabled: Toolset[] = [];
  const seen = new Map<string, string>();
  candidates.forEach((ts, i) => {
    const status = checked[i]!;
    if (status.state !== 'enabled') return;
    const clash = ts.tools.find((t) => seen.has(t.name));
    if (clash) {
      Object.assign(status, {
        state: 'failed',
        reason: `tool ${clash.name} is already defined by toolset ${seen.get(clash.name)}`,
      });
      return;
    }
    ts.tools.forEach((t) => seen.set(t.name, ts.name));
    enabled.push(ts);
  });
  const approvalRequired = enabled.flatMap((ts) => {
    const setting = Object.hasOwn(settings, ts.name) ? settings[ts.name] : undefined;
    return [...(ts.approvalRequired ?? []), ...(setting?.approvalRequired ?? [])];
  });
  const now = toolsNow(enabled, seen, log);
  return {
    statuses,
    enabled,
    tools: enabled.flatMap(toolsOf),
    approvalRequired,
    currentTools: () => now().flatMap((e) => e.tools),
    toolsetOf: { get: (tool) => now().find((e) => e.tools.some((t) => t.name === tool))?.toolset },
    statusesNow: () => statusesNow(statuses, enabled),
    close: async () => {
      await Promise.allSettled(candidates.map(async (ts) => ts.close?.()));
    },
  };
}

/**
 * The enabled toolsets' tools now, each name once: a name belongs to the toolset that had it at start-up,
 * else to the first toolset (in order) that lists it; a toolset's other tools of that name are dropped.
 */
function toolsNow(
  enabled: Toolset[],
  owners: ReadonlyMap<string, string>,
  log: Logger | undefined,
): () => Array<{ toolset: string; tools: Tool[] }> {
  const reported = new Set<string>();
  return () => {
    const taken = new Set<string>();
    return enabled.map((ts) => {
      const tools = toolsOf(ts).filter((t) => {
        const owner = owners.get(t.name) ?? ts.name;
        const clash = owner !== ts.name || taken.has(t.name);
        if (!clash) taken.add(t.name);
        else if (!reported.has(`${ts.name}\0${t.name}`)) {
          reported.add(`${ts.name}\0${t.name}`);
          log?.warn(
            { toolset: ts.name, tool: t.name },
            'tool not offered: its name is already taken by another toolset',
          );
        }
        return !clash;
      });
      return { toolset: ts.name, tools };
    });
  };
}

function statusBase(ts: Toolset): Pick<ToolsetStatus, 'name' | 'origin' | 'tools'> {
  return { name: ts.name, origin: ts.origin, tools: toolsOf(ts).map((t) => t.name) };
}

function statusesNow(statuses: ToolsetStatus[], enabled: Toolset[]): ToolsetStatus[] {
  return statuses.map((s) => {
    const ts = enabled.find((t) => t.name === s.name && t.origin === s.origin);
    if (!ts) return s;
    const trouble = ts.health?.() ?? null;
    const now = { ...s, tools: toolsOf(ts).map((t) => t.name) };
    return trouble ? { ...now, state: 'failed', reason: trouble } : now;
  });
}
