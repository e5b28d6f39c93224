import { z } from 'zod';
import { paramsKey } from '../../src/tools/call-key.js';
import { runPipeline } from '../../src/tools/run-pipeline.js';
import type { Tool, ToolOutput, Toolset } from '../../src/tools/types.js';
import { checkCommand, type BashPolicyConfig } from './policy.js';
import { createSandbox, type SandboxMode } from './sandbox.js';

export interface BashToolsetConfig extends BashPolicyConfig {
  timeoutMs: number;
  maxOutputBytes: number;
  /** Environment variables passed to commands (besides PATH, HOME, KUBECONFIG, locale): Lestrade's own secrets are not. */
  env: string[];
  /** Where commands run (see sandbox.ts); "none" only when said explicitly. */
  sandbox?: SandboxMode;
  readOnlyPaths?: string[];
}

const DESCRIPTION = [
  'Run one read-only shell command or a pipeline of them (a | b | c), e.g. `kubectl get pods -n prod | grep -v Running`.',
  'Allowed: kubectl get/describe/logs/top/events, grep, head, tail, jq, sort, uniq, wc, cut, tr, awk (no system()), curl GET to known hosts.',
  'Not allowed: ;, &&, ||, &, redirection, $(...), backticks, $VARS, subshells, VAR=x prefixes, newlines; commands that change anything are refused.',
  "Other commands need a human's approval. There is no shell: quotes group words, nothing is expanded.",
].join(' ');

const INSTRUCTIONS = [
  'Prefer the typed tools (kubectl_get, kubectl_logs, prometheus_query...) when they answer the question; use bash',
  'to narrow large output in one call (kubectl ... | grep | sort | uniq -c | head, or jq). A refused line says why:',
  'rewrite it within the rules rather than retrying it. A line that waits for approval is worth it only when',
  'nothing read-only can settle the question.',
].join('\n');

/** The bash toolset: off unless switched on (toolsets.settings.bash.enabled). */
export function createBashToolset(cfg: BashToolsetConfig): Toolset {
  const policy: BashPolicyConfig = { allow: cfg.allow, deny: cfg.deny, curlHosts: cfg.curlHosts };
  const sandbox = createSandbox({
    mode: cfg.sandbox ?? 'bubblewrap',
    readOnlyPaths: cfg.readOnlyPaths ?? [],
    env: cfg.env,
  });
  const tool: Tool = {
    name: 'bash',
    description: DESCRIPTION,
    params: z.strictObject({
      command: z.string().min(1).max(4096).describe('the command line: one command or a pipeline'),
    }),
    async verdict(params) {
      return (await checkCommand(params.command as string, policy)).verdict;
    },
    async run(params, ctx): Promise<ToolOutput> {
      // Checked again here, whatever the executor decided: a refused command never runs, and one
      // that needs a human runs only when this exact call was approved.
      const { verdict, stages } = await checkCommand(params.command as string, policy);
      if (verdict.decision === 'deny') return { status: 'error', error: `refused: ${verdict.reason}` };
      if (verdict.decision === 'ask' && !(ctx.approved && ctx.approvedCall === paramsKey('bash', params))) {
        return { status: 'error', error: `refused: needs a human's approval (${verdict.reason})` };
      }
      const out = await runPipeline(
        stages.map((argv) => sandbox.wrap(argv)),
        {
          signal: ctx.signal,
          timeoutMs: cfg.timeoutMs,
          maxBytes: cfg.maxOutputBytes,
          env: sandbox.env,
        },
      );
      const text = out.truncated ? `${out.stdout}\n…[output capped at ${cfg.maxOutputBytes} bytes]` : out.stdout;
      if (out.exitCode !== 0 && !out.truncated)
        return {
          status: 'error',
          error: `exit ${out.exitCode ?? '(stopped)'}: ${(out.stderr || out.stdout).trim().slice(0, 2000)}`,
        };
      return text.trim() === ''
        ? { status: 'no_data', message: out.stderr.trim() || 'no output' }
        : { status: 'success', data: text };
    },
  };
  return {
    name: 'bash',
    description: `Read-only shell commands, checked by a policy${sandbox.mode === 'none' ? ' (no sandbox: toolsets.bash.sandbox is none)' : ', run in a bubblewrap sandbox'}`,
    instructions: INSTRUCTIONS,
    origin: 'builtin',
    enabled: false,
    // Without its sandbox the toolset does not start (state "failed", with the fix), unless sandbox: none is said.
    prerequisites: [{ kind: 'check', run: () => sandbox.check(), failed: true }],
    tools: [tool],
  };
}
