import { runCommand } from '../../src/tools/run-command.js';
import type { RemediationSettings } from './config.js';

/** kubectl's answer for one command: its JSON, or why not (stderr, first line that says). */
export type KubectlAnswer = { ok: true; json: unknown; text: string } | { ok: false; error: string; notFound: boolean };

export interface KubectlRunner {
  run(args: string[], signal: AbortSignal, opts?: { json?: boolean }): Promise<KubectlAnswer>;
}

/** kubectl on the remediation context (never the read-only one), without a shell. */
export function kubectlRunner(
  settings: Pick<RemediationSettings, 'context' | 'kubeconfig' | 'timeoutSeconds'>,
  opts: { kubectl?: string; env?: NodeJS.ProcessEnv } = {},
): KubectlRunner {
  const base = [
    opts.kubectl ?? 'kubectl',
    `--context=${settings.context ?? ''}`,
    ...(settings.kubeconfig ? [`--kubeconfig=${settings.kubeconfig}`] : []),
    `--request-timeout=${settings.timeoutSeconds}s`,
  ];
  return {
    async run(args, signal, { json = true } = {}) {
      const out = await runCommand([...base, ...args, ...(json ? ['-o', 'json'] : [])], {
        signal,
        env: opts.env,
        timeoutMs: (settings.timeoutSeconds + 5) * 1000,
        maxBytes: 16 * 1024 * 1024,
      });
      if (out.exitCode !== 0) {
        const error = (out.stderr || out.stdout).trim().slice(0, 1000) || `kubectl exited ${String(out.exitCode)}`;
        return { ok: false, error, notFound: /\bNotFound\b|not found/.test(error) };
      }
      if (!json) return { ok: true, json: null, text: out.stdout.trim() };
      return { ok: true, json: JSON.parse(out.stdout) as unknown, text: out.stdout };
    },
  };
}
