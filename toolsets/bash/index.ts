import { z } from 'zod';
import { paramsKey } from '../../src/tools/call-key.js';
import { runPipeline } from '../../src/tools/run-pipeline.js';
import type { Tool, ToolOutput, Toolset } from '../../src/tools/types.js';
import { parseCurlHosts } from './destinations.js';
import { checkCommand, DEFAULT_MAX_STAGES, type BashPolicyConfig } from './policy.js';
import { createSandbox, type Sandbox, type SandboxMode } from './sandbox.js';
import { processSandboxSlots, type SandboxSlots } from './sandbox-slots.js';
import { pipelineVouches } from './vouches.js';

export interface BashToolsetConfig extends BashPolicyConfig {
  timeoutMs: number;
  maxOutputBytes: number;
  /** Environment variables passed to commands (besides PATH, HOME, KUBECONFIG, locale): Lestrade's own secrets are not. */
  env: string[];
  /** Where commands run (see sandbox.ts); "none" only when said explicitly. */
  sandbox?: SandboxMode;
  readOnlyPaths?: string[];
  /** Sandboxes (stages) running at once in this process, across all runs; 16 when not said. */
  maxSandboxes?: number;
  /** The kubeconfig context kubectl is pinned to (the only one its sandbox sees); the current one when not said. */
  kubeContext?: string;
}

export const DEFAULT_MAX_SANDBOXES = 16;

const DESCRIPTION = [
  'Run one read-only shell command or a pipeline of them (a | b | c), e.g. `kubectl get pods -n prod | grep -v Running`.',
  'Allowed: kubectl get/describe/logs/top/events, grep, head, tail, jq, sort, uniq, wc, cut, tr, awk (no system()), curl GET to known hosts.',
  'Not allowed: ;, &&, ||, &, redirection, $(...), backticks, $VARS, subshells, VAR=x prefixes, newlines; commands that change anything are refused.',
  "Other commands need a human's approval. There is no shell: quotes group words, nothing is expanded.",
  'A line has a few stages at most; kubectl runs as one fixed context (no --context, --user, --server); curl reaches only the configured host:port pairs.',
].join(' ');

const INSTRUCTIONS = [
  'Prefer the typed tools (kubectl_get, kubectl_logs, prometheus_query...) when they answer the question; use bash',
  'to narrow large output in one call (kubectl ... | grep | sort | uniq -c | head, or jq). A refused line says why:',
  'rewrite it within the rules rather than retrying it. A line that waits for approval is worth it only when',
  'nothing read-only can settle the question.',
].join('\n');

/** The bash toolset: off unless switched on (toolsets.settings.bash.enabled). */
export function createBashToolset(cfg: BashToolsetConfig): Toolset {
  const policy: BashPolicyConfig = {
    allow: cfg.allow,
    deny: cfg.deny,
    curlHosts: cfg.curlHosts,
    maxStages: cfg.maxStages,
  };
  const sandbox = createSandbox({
    mode: cfg.sandbox ?? 'bubblewrap',
    readOnlyPaths: cfg.readOnlyPaths ?? [],
    env: cfg.env,
    curlHosts: cfg.curlHosts,
    kubeContext: cfg.kubeContext,
  });
  const slots = processSandboxSlots(cfg.maxSandboxes ?? DEFAULT_MAX_SANDBOXES);
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
      return runStages(stages, verdict.decision === 'ask', { sandbox, slots, cfg, signal: ctx.signal });
    },
  };
  return {
    name: 'bash',
    description: `Read-only shell commands, checked by a policy${sandbox.mode === 'none' ? ' (no sandbox: toolsets.bash.sandbox is none)' : ', run in a bubblewrap sandbox'}`,
    instructions: INSTRUCTIONS,
    origin: 'builtin',
    enabled: false,
    // Without its sandbox the toolset does not start (state "failed", with the fix), unless sandbox: none is said.
    prerequisites: [{ kind: 'check', run: async () => checkConfig(cfg) ?? (await sandbox.check()), failed: true }],
    tools: [tool],
  };
}

interface RunDeps {
  sandbox: Sandbox;
  slots: SandboxSlots;
  cfg: BashToolsetConfig;
  signal: AbortSignal;
}

/** One line: slots for its stages (waiting for them), its sandbox run (egress proxies, kubeconfig), the pipeline. */
async function runStages(stages: string[][], approved: boolean, d: RunDeps): Promise<ToolOutput> {
  const release = await d.slots.acquire(stages.length, d.signal);
  try {
    const run = await d.sandbox.open({ programs: stages.map((argv) => argv[0]!), approved });
    if ('error' in run) return { status: 'error', error: run.error };
    try {
      const out = await runPipeline(
        stages.map((argv) => run.wrap(argv)),
        { signal: d.signal, timeoutMs: d.cfg.timeoutMs, maxBytes: d.cfg.maxOutputBytes, env: run.env },
      );
      // Only a line that read an outside system and then only filtered vouches for the links in its output.
      const output = outputOf(out, d.cfg.maxOutputBytes);
      return output.status === 'success' && pipelineVouches(stages) ? { ...output, vouches: true } : output;
    } finally {
      await run.close();
    }
  } finally {
    release();
  }
}

function outputOf(out: Awaited<ReturnType<typeof runPipeline>>, maxOutputBytes: number): ToolOutput {
  const text = out.truncated ? `${out.stdout}\n…[output capped at ${maxOutputBytes} bytes]` : out.stdout;
  if (out.exitCode !== 0 && !out.truncated)
    return {
      status: 'error',
      error: `exit ${out.exitCode ?? '(stopped)'}: ${(out.stderr || out.stdout).trim().slice(0, 2000)}`,
    };
  return text.trim() === ''
    ? { status: 'no_data', message: out.stderr.trim() || 'no output' }
    : { status: 'success', data: text };
}

/** The toolset's own settings, checked together: null when they hold, else what to change. */
function checkConfig(cfg: BashToolsetConfig): string | null {
  const { invalid } = parseCurlHosts(cfg.curlHosts);
  if (invalid.length)
    return `toolsets.bash.curlHosts: ${JSON.stringify(invalid[0])} is not host:port (or a host name, for ports 80 and 443)`;
  const maxStages = cfg.maxStages ?? DEFAULT_MAX_STAGES;
  const maxSandboxes = cfg.maxSandboxes ?? DEFAULT_MAX_SANDBOXES;
  if (maxStages > maxSandboxes)
    return `toolsets.bash.maxStages (${maxStages}) is more than toolsets.bash.maxSandboxes (${maxSandboxes}): a line could never run; lower the first or raise the second`;
  return null;
}
