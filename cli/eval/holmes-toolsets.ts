/**
 * HolmesGPT's toolset names (a case's `toolsets:` in test_case.yaml or toolsets.yaml) in Lestrade's words: the
 * toolset of ours, and the tools of it that HolmesGPT's toolset stands for (none listed: all of them). Switching
 * one of theirs on switches ours on; switching it off takes those tools away (and a toolset of ours left with no
 * tool is off), so off means off.
 */
export const HOLMES_TOOLSETS: Record<string, { toolset: string; tools?: string[] }> = {
  'kubernetes/core': {
    toolset: 'kubernetes',
    tools: [
      'kubectl_get',
      'kubectl_describe',
      'kubectl_events',
      'kubectl_find_resource',
      'kubectl_rollout_history',
      'kubectl_rollout_status',
      'kubectl_pods_not_ready',
      'kubectl_warning_events',
      'kubectl_pod_resources',
    ],
  },
  'kubernetes/logs': { toolset: 'kubernetes', tools: ['kubectl_logs'] },
  'kubernetes/live-metrics': { toolset: 'kubernetes', tools: ['kubectl_top_pods'] },
  'prometheus/metrics': { toolset: 'prometheus' },
  'grafana/loki': { toolset: 'loki' },
  runbook: { toolset: 'runbooks' },
  bash: { toolset: 'bash' },
};

/** A case's toolset switches, resolved: over our toolsets, over single tools, over the toolsets its mocks name. */
export interface CaseToolsets {
  /** Our toolsets switched on or off, by our name. */
  overrides: Record<string, { enabled?: boolean } | undefined>;
  /** Our tools whose HolmesGPT toolset the case switched off. */
  offTools: string[];
  /** Toolset names (as mocks' toolset_name give them) switched off: their recorded tools are not offered. */
  offRecorded: string[];
}

/** `{name: {enabled}}` with HolmesGPT's names or ours, as the case gives it. */
export function caseToolsets(raw: Record<string, { enabled?: boolean } | undefined>): CaseToolsets {
  const out: CaseToolsets = { overrides: {}, offTools: [], offRecorded: [] };
  for (const [name, value] of Object.entries(raw)) {
    const enabled = value?.enabled;
    const theirs = Object.hasOwn(HOLMES_TOOLSETS, name) ? HOLMES_TOOLSETS[name] : undefined;
    if (enabled === false) out.offRecorded.push(name);
    if (!theirs) {
      out.overrides[name] = { ...out.overrides[name], ...(enabled === undefined ? {} : { enabled }) };
      continue;
    }
    if (enabled === true) out.overrides[theirs.toolset] = { enabled: true };
    if (enabled === false && theirs.tools) out.offTools.push(...theirs.tools);
    if (enabled === false && !theirs.tools) out.overrides[theirs.toolset] = { enabled: false };
  }
  return out;
}
