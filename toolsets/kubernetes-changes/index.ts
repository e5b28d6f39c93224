import { z } from 'zod';
import { runCommand } from '../../src/tools/run-command.js';
import type { Tool, ToolOutput, Toolset } from '../../src/tools/types.js';
import { describeRevisions, matchLabelsSelector, type Deployment, type ReplicaSet } from './replicaset-diff.js';
import { readsOutside } from '../../src/tools/reads-outside.js';

/** A DNS-1123 name: nothing that adds a flag, a path or a second selector. */
const k8sName = z.string().regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, 'a Kubernetes name (lower-case, digits, - and .)');

export interface KubernetesChangesOptions {
  /** The kubectl to run (tests point it at a kubeconfig of their own through env). */
  kubectl?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** kubectl with no kubeconfig and no service account tries localhost:8080: said plainly (as toolsets/kubernetes.yaml). */
export const NO_CLUSTER = {
  match: 'The connection to the server localhost:8080 was refused',
  say:
    "no kubeconfig or in-cluster credentials found: set KUBECONFIG or run in a pod with a service account (kubectl's " +
    "fallback, localhost:8080, refused; not Lestrade's port)",
};

/**
 * "What changed" in a Deployment, in TypeScript because kubectl cannot diff: its ReplicaSets (one per
 * revision) are read with kubectl and their pod templates compared. The YAML kubernetes toolset has
 * the rest (rollout history and status, events).
 */
export function createKubernetesChangesToolset(opts: KubernetesChangesOptions = {}): Toolset {
  const kubectl = opts.kubectl ?? 'kubectl';
  return {
    name: 'kubernetes_changes',
    description: 'What changed in a Deployment between revisions: images, env variable names, resources',
    instructions:
      'When a workload misbehaves, check whether it changed shortly before the issue started: kubernetes_rollout_diff ' +
      'shows each revision with its time and what changed (image, env variable names, resources). Say which change ' +
      'lines up with the start, and do not claim a change caused it without other evidence (logs, metrics, events).',
    origin: 'builtin',
    enabled: true,
    prerequisites: [
      { kind: 'command', argv: [kubectl, 'version', '--request-timeout=5s'], timeoutMs: 10_000, explain: [NO_CLUSTER] },
    ],
    tools: readsOutside([rolloutDiffTool(kubectl, opts)]),
  };
}

function rolloutDiffTool(kubectl: string, opts: KubernetesChangesOptions): Tool {
  const getJson = async (args: string[], signal: AbortSignal): Promise<unknown> => {
    const out = await runCommand([kubectl, ...args, '-o', 'json'], {
      signal,
      env: opts.env,
      timeoutMs: opts.timeoutMs ?? 30_000,
      maxBytes: 32 * 1024 * 1024,
    });
    if (out.exitCode !== 0)
      throw new Error(`kubectl ${args.join(' ')}: ${(out.stderr || out.stdout).trim().slice(0, 1000)}`);
    if (out.truncated) throw new Error(`kubectl ${args.join(' ')}: answer larger than 32 MiB`);
    return JSON.parse(out.stdout) as unknown;
  };
  return {
    name: 'kubernetes_rollout_diff',
    description:
      "A Deployment's revisions (its ReplicaSets), newest first, each with what changed in the pod template " +
      'since the revision before: images, env variables (names only, values are never shown), resources, ' +
      'command and args, other pod spec fields by name. Use it to see what a rollout changed.',
    params: z.strictObject({
      namespace: k8sName.describe('namespace'),
      name: k8sName.describe('deployment name'),
      revisions: z.int().min(1).max(20).default(5).describe('newest revisions to show (default 5)'),
    }),
    run: async (p, ctx): Promise<ToolOutput> => {
      const ns = p.namespace as string;
      const deployment = (await getJson(
        ['get', 'deployment', p.name as string, '--namespace', ns],
        ctx.signal,
      )) as Deployment;
      const selector = matchLabelsSelector(deployment);
      const list = (await getJson(
        ['get', 'replicasets', '--namespace', ns, ...(selector ? ['--selector', selector] : [])],
        ctx.signal,
      )) as { items?: ReplicaSet[] };
      const text = describeRevisions(deployment, list.items ?? [], p.revisions as number);
      return text
        ? { status: 'success', data: text }
        : { status: 'no_data', message: 'the deployment owns no ReplicaSet' };
    },
  };
}
