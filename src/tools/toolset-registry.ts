import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { firstFailure } from './check-prerequisites.js';
import type { Tool, Toolset, ToolsetStatus } from './types.js';
import { loadYamlToolset } from './yaml-toolset.js';

export interface ToolsetSettings {
  [name: string]: { enabled?: boolean; approvalRequired?: string[] } | undefined;
}

export interface ResolvedToolsets {
  statuses: ToolsetStatus[];
  /** Toolsets whose prerequisites passed: the only ones the model sees. */
  enabled: Toolset[];
  tools: Tool[];
  /** Tools that need a human's approval for every call: the toolsets' own lists plus the settings'. */
  approvalRequired: string[];
}

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
 * passing, and tool names unique. Everything else is reported with why.
 */
export async function resolveToolsets(
  candidates: Toolset[],
  settings: ToolsetSettings,
  env: Record<string, string | undefined>,
  failures: ToolsetStatus[] = [],
): Promise<ResolvedToolsets> {
  const checked = await Promise.all(
    candidates.map(async (ts): Promise<ToolsetStatus> => {
      const base = { name: ts.name, origin: ts.origin, tools: ts.tools.map((t) => t.name) };
      const setting = Object.hasOwn(settings, ts.name) ? settings[ts.name] : undefined;
      if (!(setting?.enabled ?? ts.enabled))
        return { ...base, state: 'disabled', reason: 'switched off in configuration' };
      const failure = await firstFailure(ts.prerequisites, env);
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
  return { statuses, enabled, tools: enabled.flatMap((ts) => ts.tools), approvalRequired };
}
