import type { Config } from '../src/config/schema.js';
import { redactorFromConfig } from '../src/config/secrets.js';
import { redactUrlsIn } from '../src/redact.js';
import { RunbookCatalog } from '../src/runbooks/runbook-catalog.js';
import { buildToolsets } from './build-investigator.js';
import { runbooksConfig } from '../toolsets/index.js';

/** `lestrade toolsets list`: each toolset enabled, disabled or failed with why, then the runbooks skipped. */
export async function toolsetsListCommand(
  cfg: Config,
  env: NodeJS.ProcessEnv,
  opts: { json?: boolean },
): Promise<void> {
  const runbooks = RunbookCatalog.load(runbooksConfig(cfg).dirs);
  const resolved = await buildToolsets(cfg, env, runbooks);
  await resolved.close();
  // Reasons quote URLs and command output: no secret or URL password is printed.
  const redact = redactorFromConfig(cfg);
  const print = (text: string) => process.stdout.write(redactUrlsIn(redact(text)));
  if (opts.json) {
    print(`${JSON.stringify(resolved.statuses, null, 2)}\n`);
    return;
  }
  // The name column as wide as the longest name (kubernetes_changes), so the reasons line up.
  const width = Math.max(16, ...resolved.statuses.map((s) => s.name.length));
  for (const s of resolved.statuses) {
    print(
      `${s.state.padEnd(9)} ${s.name.padEnd(width)} ${s.reason ?? `${s.tools.length} tools: ${s.tools.join(', ')}`}\n`,
    );
  }
  print(runbookLines(runbooks));
}

/** What `toolsets list` says of the runbooks: how many loaded, and each file skipped with why. */
function runbookLines(runbooks: RunbookCatalog): string {
  if (runbooks.runbooks.length === 0 && runbooks.problems.length === 0) return '';
  const lines = [`runbooks: ${runbooks.runbooks.length} loaded, ${runbooks.problems.length} skipped`];
  for (const p of runbooks.problems)
    lines.push(`skipped   runbook ${p.file}${p.line ? `:${p.line}` : ''}: ${p.reason}`);
  return `${lines.join('\n')}\n`;
}
