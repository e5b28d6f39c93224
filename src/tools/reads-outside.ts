import type { Tool } from './types.js';

/**
 * Marks tools that read a system outside Lestrade (Prometheus, Loki, Alertmanager, GitHub, the cluster, a runbook
 * host): what they return was not written by the model, so hosts it names may be linked in the RCA.
 */
export function readsOutside(tools: Tool[]): Tool[] {
  return tools.map((t) => ({ ...t, vouchesForLinks: true }));
}
