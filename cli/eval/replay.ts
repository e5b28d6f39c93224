import type { Config } from '../../src/config/schema.js';
import type { Toolset } from '../../src/tools/types.js';
import type { EvalCase } from './eval-case.js';
import type { MockEntry } from './mock-file.js';
import { caseExecutor } from './run-case.js';
import { droppedParams, renameParams, type ToolAliases } from './tool-aliases.js';

/** What became of one recorded call when replayed with its recorded parameters. */
export interface ReplayedCall {
  case: string;
  /** The mock file the call was recorded in. */
  mock: string;
  /** The call as made: our tool's name and the recorded parameters in its words. */
  tool: string;
  params: Record<string, unknown>;
  outcome: 'own' | 'other' | 'unanswerable';
  /** other: the mock that answered instead; unanswerable: why (the executor's error). */
  detail?: string;
  /** Recorded parameters our tool has no counterpart for (left out of the call). */
  dropped: string[];
}

export interface ReplayRun {
  config: Config;
  /** Lestrade's toolsets, before prerequisites. */
  candidates: Toolset[];
  aliases: ToolAliases;
}

/**
 * The call a scripted model makes to reach this mock: to the tool of ours the mock's name is an alias of (its
 * parameters renamed, the alias's fixed values added), else to the mock's own tool with its parameters as recorded.
 */
export function recordedCall(
  m: MockEntry,
  aliases: ToolAliases,
  ours: ReadonlyMap<string, { params: { shape: object } }>,
): { tool: string; params: Record<string, unknown>; dropped: string[] } {
  const alias = aliases.get(m.tool);
  const target = alias ? ours.get(alias.tool) : undefined;
  // A null the model sent is a parameter it did not give: left out, as a model's retry would.
  const given = (p: Record<string, unknown> | null) =>
    Object.fromEntries(Object.entries(p ?? {}).filter(([, v]) => v !== null));
  if (!alias || !target) return { tool: m.tool, params: given(m.matchParams), dropped: [] };
  const keys = new Set(Object.keys(target.params.shape));
  return {
    tool: alias.tool,
    params: given(renameParams(m.matchParams, alias, keys)),
    dropped: droppedParams(m.matchParams, alias, keys),
  };
}

/**
 * One case replayed: every recorded mock called once, in file order, through the service's executor (argument
 * validation, approval policy), by a scripted caller that makes exactly the recorded call; each call is
 * answered by its own mock, by another, or not at all (with the reason).
 */
export async function replayCase(run: ReplayRun, c: EvalCase): Promise<ReplayedCall[]> {
  const { executor, mocked } = caseExecutor(run.config, run.candidates, run.aliases, c);
  const ours = new Map(mocked.tools.map((t) => [t.name, t] as const));
  const out: ReplayedCall[] = [];
  for (const [i, m] of c.mocks.entries()) {
    const call = recordedCall(m, run.aliases, ours);
    const before = mocked.calls.length;
    const result = await executor.execute({
      id: `replay_${i}`,
      name: call.tool,
      arguments: JSON.stringify(call.params),
    });
    const answered = mocked.calls.length > before ? mocked.calls.at(-1)!.mock : null;
    const base = { case: c.id, mock: m.file, tool: call.tool, params: call.params, dropped: call.dropped };
    const twin = c.mocks.find((k) => k.file === answered && k !== m && sameRecording(k, m));
    if (answered === m.file) out.push({ ...base, outcome: 'own' });
    else if (twin) out.push({ ...base, outcome: 'own', detail: `an identical recording, ${twin.file}` });
    else if (answered) out.push({ ...base, outcome: 'other', detail: `answered by ${answered}` });
    else if (!ours.has(call.tool)) {
      const detail = `${call.tool} is not offered: the case switched its toolset off (toolsets.yaml or toolsets:)`;
      out.push({ ...base, outcome: 'unanswerable', detail });
    } else out.push({ ...base, outcome: 'unanswerable', detail: result.error ?? `status ${result.status}` });
  }
  return out;
}

/** The same tool and parameters recorded twice (HolmesGPT has tools of one name in two toolsets). */
function sameRecording(a: MockEntry, b: MockEntry): boolean {
  return a.tool === b.tool && JSON.stringify(a.matchParams) === JSON.stringify(b.matchParams);
}

/** The replay's report: a line per case, the totals, then every call not answered by its own mock with why. */
export function formatReplay(calls: ReplayedCall[], skipped: Array<{ id: string; reason: string }>): string {
  const lines: string[] = [];
  const cases = [...new Set(calls.map((k) => k.case))];
  for (const id of cases) {
    const of = calls.filter((k) => k.case === id);
    const own = of.filter((k) => k.outcome === 'own').length;
    lines.push(`${own === of.length ? 'ok  ' : 'MISS'} ${id}: ${own}/${of.length} answered by their own mock`);
  }
  for (const s of skipped) lines.push(`skip ${s.id}: ${s.reason}`);
  const count = (o: ReplayedCall['outcome']) => calls.filter((k) => k.outcome === o).length;
  const share = calls.length ? (count('own') / calls.length) * 100 : 100;
  lines.push(
    '',
    `${calls.length} recorded calls: ${count('own')} answered by their own mock (${share.toFixed(1)}%), ` +
      `${count('other')} by another, ${count('unanswerable')} unanswerable`,
  );
  const rest = calls.filter((k) => k.outcome !== 'own');
  if (rest.length) lines.push('', ...rest.map((k) => `  ${k.case}/${k.mock}: ${k.outcome}: ${k.detail ?? ''}`));
  const dropped = calls.filter((k) => k.dropped.length);
  if (dropped.length) {
    lines.push('', 'recorded parameters our tools do not take (left out of the call):');
    lines.push(...dropped.map((k) => `  ${k.case}/${k.mock}: ${k.dropped.join(', ')}`));
  }
  return `${lines.join('\n')}\n`;
}

/** The share of recorded calls answered by their own mock, 0..1 (1 when there are none). */
export function ownShare(calls: ReplayedCall[]): number {
  return calls.length ? calls.filter((k) => k.outcome === 'own').length / calls.length : 1;
}
