/**
 * `lestrade eval --replay`: the plumbing check any user can run on a case, and CI runs on the shipped ones.
 * Every recorded call is made with its recorded parameters through the real executor; the report says which
 * its own mock answered. The shipped cases must all be; HolmesGPT's sample at least 95%, the rest named.
 */
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../helpers/run-cli.js';

const EVALS = new URL('../../../../evals', import.meta.url).pathname;

describe('lestrade eval --replay', () => {
  it('answers every recorded call of the shipped cases by its own mock, with no model configured', async () => {
    const r = await runCli(['eval', '--replay', EVALS, '--min-pass', '100'], {});
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(
      /^\d+ recorded calls: (\d+) answered by their own mock \(100\.0%\), 0 by another, 0 unanswerable$/m,
    );
    expect(r.code).toBe(0);
  }, 60_000);

  it("answers at least 95% of HolmesGPT's sample by their own mock, naming the rest and the cases needing a cluster", async () => {
    const r = await runCli(['eval', '--replay', join(EVALS, 'holmesgpt'), '--min-pass', '95'], {});
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      '58 recorded calls: 57 answered by their own mock (98.3%), 1 by another, 0 unanswerable',
    );
    expect(r.stdout).toContain(
      '50a_logs_since_last_specific_month/fetch_pod_logs_default.txt: other: answered by fetch_pod_logs2024-12-31T23_59_59Z_default_',
    );
    expect(r.stdout).toContain('skip 92_cpu_graph_conversation[0]: needs a cluster');
    expect(r.stdout).toMatch(/fetch_pod_logs2024-12-31T23_59_59Z_default_[^:]*: end_time/);
  }, 60_000);

  it('names a call no mock can answer and why, and exits 1 under --min-pass', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lestrade-replay-'));
    cpSync(join(EVALS, '26_holmes_tool_names'), join(dir, 'case'), { recursive: true });
    // A recorded kind our kubectl_get refuses (its pattern): the call cannot be made as recorded.
    writeFileSync(
      join(dir, 'case', 'kubectl_get_by_kind_in_cluster.txt'),
      '{"toolset_name": "kubernetes/core", "tool_name": "kubectl_get_by_kind_in_cluster", "match_params": {"kind": "pods;x"}}\nno\n',
    );
    const r = await runCli(['eval', '--replay', dir, '--min-pass', '100'], {});
    expect(r.stdout).toContain('MISS case: 3/4 answered by their own mock');
    expect(r.stdout).toMatch(
      /case\/kubectl_get_by_kind_in_cluster\.txt: unanswerable: invalid arguments: kind: must match/,
    );
    expect(r.stdout).toContain('75.0% answered by their own mock is below --min-pass 100%');
    expect(r.code).toBe(1);
    // The case switches HolmesGPT's kubernetes/logs off: its recorded fetch_pod_logs call cannot be made.
    writeFileSync(join(dir, 'case', 'toolsets.yaml'), 'toolsets:\n  kubernetes/logs:\n    enabled: false\n');
    const off = await runCli(['eval', '--replay', dir], {});
    expect(off.stdout).toMatch(
      /case\/fetch_pod_logs\.txt: unanswerable: fetch_pod_logs is not offered: the case switched its toolset off/,
    );
  }, 60_000);
});
