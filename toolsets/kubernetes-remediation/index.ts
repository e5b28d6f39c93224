import type { RolloutProbe } from '../../src/remediation/probes.js';
import type { Toolset } from '../../src/tools/types.js';
import { REMEDIATION_ACTIONS } from './actions.js';
import type { RemediationSettings } from './config.js';
import { kubectlRunner } from './kubectl.js';
import { remediationTool } from './remediation-tool.js';
import { rolloutProbe } from './rollout-status.js';

export interface RemediationOptions {
  kubectl?: string;
  env?: NodeJS.ProcessEnv;
}

/** The remediation toolset (docs/remediation.md): four Kubernetes writes, each approved by a person first. */
export function createRemediationToolset(settings: RemediationSettings, opts: RemediationOptions = {}): Toolset {
  const kubectl = kubectlRunner(settings, opts);
  const tools = REMEDIATION_ACTIONS.map((a) => remediationTool(a, settings, kubectl));
  return {
    name: 'kubernetes_remediation',
    description: 'Kubernetes fixes, each approved by a person: rollout restart and undo, scale, delete a pod',
    instructions:
      'Propose a fix only when the evidence supports it, and the smallest one that helps (restart or delete one pod ' +
      'before a rollback; a rollback when a rollout lines up with the start). Each call waits for a person, who sees ' +
      "the server's dry run; say in your answer what you proposed and why.",
    origin: 'builtin',
    enabled: settings.enabled,
    prerequisites: [
      {
        kind: 'command',
        argv: [
          opts.kubectl ?? 'kubectl',
          `--context=${settings.context ?? ''}`,
          ...(settings.kubeconfig ? [`--kubeconfig=${settings.kubeconfig}`] : []),
          'version',
          '--request-timeout=5s',
        ],
        timeoutMs: 10_000,
      },
    ],
    tools,
    approvalRequired: tools.map((t) => t.name),
  };
}

/**
 * The verifier's rollout probe (src/remediation, docs/remediation.md "Verified"): reads the workload with the
 * remediation context, as the writes do, and judges it as `kubectl rollout status` does.
 */
export function createRolloutProbe(settings: RemediationSettings, opts: RemediationOptions = {}): RolloutProbe {
  return rolloutProbe(kubectlRunner(settings, opts));
}
