import type { Config } from '../../src/config/schema.js';
import { loadYamlToolsets } from '../../src/tools/toolset-registry.js';
import { BUILTIN_YAML_DIR, builtinToolsets } from '../../toolsets/index.js';
import { findCases } from './eval-case.js';
import { selectCases, type EvalIo, type EvalOptions } from './eval-command.js';
import { formatReplay, ownShare, replayCase, type ReplayedCall } from './replay.js';
import { loadAliases } from './tool-aliases.js';
import { join } from 'node:path';

/**
 * `lestrade eval --replay [DIR...]`: a plumbing check of cases, no model needed. Every recorded call is made
 * once with its recorded parameters; the report says which were answered by their own mock, by another, or
 * not at all. Exits 1 under --min-pass when the share answered by their own mock is below it.
 */
export async function replayCommand(dirs: string[], opts: EvalOptions, config: Config, io: EvalIo): Promise<number> {
  const cases = selectCases(findCases(dirs.length ? dirs : ['evals']), opts.filter);
  const aliases = loadAliases(dirs.map((d) => join(d, 'tool-aliases.yaml')));
  const yaml = loadYamlToolsets([BUILTIN_YAML_DIR, ...config.toolsets.dirs], io.env);
  const run = { config, candidates: [...builtinToolsets(config), ...yaml.toolsets], aliases };
  const calls: ReplayedCall[] = [];
  const skipped: Array<{ id: string; reason: string }> = [];
  for (const c of cases) {
    // A user_prompt list makes one case per prompt over the same mocks: replayed once.
    if (/\[[1-9]\d*\]$/.test(c.id)) continue;
    if (c.mocks.length === 0) skipped.push({ id: c.id, reason: c.skip ?? 'no recorded tool output' });
    else calls.push(...(await replayCase(run, c)));
  }
  io.out(formatReplay(calls, skipped));
  const share = ownShare(calls) * 100;
  if (opts.minPass !== undefined && share < opts.minPass) {
    io.out(`${share.toFixed(1)}% answered by their own mock is below --min-pass ${opts.minPass}%\n`);
    return 1;
  }
  return 0;
}
