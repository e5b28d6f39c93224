import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand } from '../../src/tools/run-command.js';
import type { Destination } from './destinations.js';

/** A pod's service account (in-cluster kubectl), used when there is no kubeconfig. */
export const IN_CLUSTER = '/var/run/secrets/kubernetes.io/serviceaccount';

export type PinnedKubeconfig =
  { ok: true; path: string; apiServer: Destination | null } | { ok: false; reason: string };

interface KubeconfigDoc {
  clusters?: Array<{ name?: string; cluster?: Record<string, unknown> }>;
  users?: Array<{ name?: string; user?: Record<string, unknown> }>;
  [key: string]: unknown;
}

/**
 * The kubeconfig kubectl sees in the sandbox (issue 30): written by Lestrade into its private
 * folder (0600), holding only the configured context (toolsets.bash.kubeContext, else the current
 * one), its cluster and its user, with certificate files inlined (`kubectl config view --minify
 * --flatten`) and a token file read in. With proxyUrl, the cluster goes through the egress proxy
 * (kubeconfig's proxy-url applies to every host, loopback included, unlike HTTPS_PROXY in Go).
 * Without a kubeconfig, in a pod, the service account's. No other context, cluster or user is in it,
 * so no option or trick can switch to one.
 */
export async function writePinnedKubeconfig(
  dir: string,
  hostEnv: NodeJS.ProcessEnv,
  opts: { context?: string; proxyUrl?: string },
): Promise<PinnedKubeconfig> {
  const found = await minified(hostEnv, opts.context);
  if ('reason' in found) return { ok: false, reason: found.reason };
  const { doc } = found;
  inlineTokenFile(doc);
  const cluster = doc.clusters?.[0]?.cluster;
  if (cluster && opts.proxyUrl) cluster['proxy-url'] = opts.proxyUrl;
  const path = join(dir, 'kubeconfig');
  writeFileSync(path, JSON.stringify(doc, null, 2), { mode: 0o600 });
  return { ok: true, path, apiServer: serverOf(cluster) };
}

async function minified(
  hostEnv: NodeJS.ProcessEnv,
  context?: string,
): Promise<{ doc: KubeconfigDoc } | { reason: string }> {
  const argv = ['kubectl', 'config', 'view', '--minify', '--flatten', '--raw', '-o', 'json'];
  if (context) argv.push('--context', context);
  const env = { PATH: hostEnv.PATH, HOME: hostEnv.HOME, KUBECONFIG: hostEnv.KUBECONFIG };
  const out = await runCommand(argv, { env, timeoutMs: 10_000, maxBytes: 4 * 1024 * 1024 }).catch((e: Error) => ({
    exitCode: -1,
    stdout: '',
    stderr: e.message,
  }));
  if (out.exitCode === 0) return { doc: JSON.parse(out.stdout) as KubeconfigDoc };
  if (!context && hostEnv.KUBERNETES_SERVICE_HOST) return { doc: inCluster(hostEnv) };
  const why = out.stderr.trim().split('\n').at(-1) ?? `exit ${out.exitCode}`;
  return {
    reason:
      `kubectl has no usable context to pin (${why}): set KUBECONFIG (or ~/.kube/config) with a current-context, ` +
      'or name one in toolsets.bash.kubeContext',
  };
}

/** In a pod without a kubeconfig: the API server from the service environment, the pod's account. */
function inCluster(hostEnv: NodeJS.ProcessEnv): KubeconfigDoc {
  const host = hostEnv.KUBERNETES_SERVICE_HOST!;
  const server = `https://${host.includes(':') ? `[${host}]` : host}:${hostEnv.KUBERNETES_SERVICE_PORT ?? '443'}`;
  return {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'in-cluster', cluster: { server, 'certificate-authority': `${IN_CLUSTER}/ca.crt` } }],
    users: [{ name: 'in-cluster', user: { tokenFile: `${IN_CLUSTER}/token` } }],
    contexts: [{ name: 'in-cluster', context: { cluster: 'in-cluster', user: 'in-cluster' } }],
    'current-context': 'in-cluster',
  };
}

/** A user's tokenFile outside the sandbox's reach is read into the kubeconfig (the service account's stays bound). */
function inlineTokenFile(doc: KubeconfigDoc): void {
  const user = doc.users?.[0]?.user;
  const file = user?.tokenFile;
  if (!user || typeof file !== 'string' || file.startsWith(`${IN_CLUSTER}/`)) return;
  user.token = readFileSync(file, 'utf8').trim();
  delete user.tokenFile;
}

function serverOf(cluster: Record<string, unknown> | undefined): Destination | null {
  if (typeof cluster?.server !== 'string') return null;
  try {
    const url = new URL(cluster.server);
    const defaultPort = url.protocol === 'https:' ? 443 : 80;
    return { host: url.hostname.toLowerCase(), port: url.port ? Number(url.port) : defaultPort };
  } catch {
    return null;
  }
}
