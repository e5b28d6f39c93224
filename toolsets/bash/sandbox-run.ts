import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCurlHosts, type Destination } from './destinations.js';
import { bridgeArgv, PROXY_ENV, PROXY_URL, SANDBOX_KUBECONFIG, SANDBOX_SOCKET } from './egress-bridge.js';
import { startEgressProxy, type EgressProxy } from './egress-proxy.js';
import { IN_CLUSTER, writePinnedKubeconfig } from './sandbox-kubeconfig.js';
import type { SandboxConfig } from './sandbox-config.js';

export interface RunOptions {
  /** The program of each stage (argv[0]): a proxy is started only for network programs present. */
  programs: string[];
  /** The line needed a human and was approved: curl's proxy lets any method through (same hosts). */
  approved: boolean;
}

/** One line's sandbox: how to spawn each stage, with what environment; close() stops its proxies and removes its files. */
export interface SandboxRun {
  wrap(argv: string[]): string[];
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export interface RunBase {
  cfg: SandboxConfig;
  hostEnv: NodeJS.ProcessEnv;
  env: NodeJS.ProcessEnv;
  socat: string | null;
  /** The bwrap argv of a stage, with extra mounts and environment. */
  stage(argv: string[], extra?: string[], stageEnv?: Record<string, string>): string[];
}

/**
 * Opens one line's run (issue 30): a private folder (0700) for the proxies' sockets and the pinned
 * kubeconfig; for curl an egress proxy reaching toolsets.bash.curlHosts only, for kubectl one
 * reaching only the pinned context's API server. Each network stage gets its proxy's socket bound
 * at /run/lestrade/egress.sock and socat bridging it onto the sandbox's loopback; no stage has any
 * other network. With sandbox: none there is no boundary: kubectl still gets the pinned kubeconfig.
 */
export async function openSandboxRun(base: RunBase, run: RunOptions): Promise<SandboxRun | { error: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-bash-'));
  const proxies: EgressProxy[] = [];
  const close = async () => {
    await Promise.all(proxies.map((p) => p.close()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    return await openIn(dir, proxies, base, run, close);
  } catch (e) {
    await close();
    throw e;
  }
}

async function openIn(
  dir: string,
  proxies: EgressProxy[],
  base: RunBase,
  run: RunOptions,
  close: () => Promise<void>,
): Promise<SandboxRun | { error: string }> {
  const boxed = base.cfg.mode === 'bubblewrap';
  let kube: { path: string; apiServer: Destination | null } | undefined;
  if (run.programs.includes('kubectl')) {
    const pinned = await writePinnedKubeconfig(dir, base.hostEnv, {
      context: base.cfg.kubeContext,
      proxyUrl: boxed ? PROXY_URL : undefined,
    });
    if (!pinned.ok) {
      await close();
      return { error: pinned.reason };
    }
    kube = pinned;
  }
  if (!boxed) return { wrap: (argv) => argv, env: { ...base.env, ...(kube && { KUBECONFIG: kube.path }) }, close };
  const sockets: Record<string, string> = {};
  if (run.programs.includes('curl')) {
    const rules = {
      destinations: parseCurlHosts(base.cfg.curlHosts ?? []).destinations,
      methods: run.approved ? ('any' as const) : ('read-only' as const),
      configKey: 'toolsets.bash.curlHosts',
    };
    sockets.curl = join(dir, 'curl.sock');
    proxies.push(await startEgressProxy(sockets.curl, rules));
  }
  if (kube) {
    const destinations = kube.apiServer ? [kube.apiServer] : [];
    const configKey = 'the pinned kubeconfig (toolsets.bash.kubeContext)';
    sockets.kubectl = join(dir, 'kubectl.sock');
    proxies.push(await startEgressProxy(sockets.kubectl, { destinations, methods: 'any', configKey }));
  }
  return { wrap: (argv) => wrapStage(base, argv, sockets, kube?.path), env: base.env, close };
}

function wrapStage(base: RunBase, argv: string[], sockets: Record<string, string>, kubeconfig?: string): string[] {
  const name = argv[0]!;
  const socket = Object.hasOwn(sockets, name) ? sockets[name] : undefined;
  if (!socket || !base.socat) return base.stage(argv);
  const extra = ['--ro-bind', socket, SANDBOX_SOCKET];
  const stageEnv: Record<string, string> = { ...PROXY_ENV };
  if (name === 'kubectl' && kubeconfig) {
    extra.push('--ro-bind', kubeconfig, SANDBOX_KUBECONFIG, '--ro-bind-try', IN_CLUSTER, IN_CLUSTER);
    stageEnv.KUBECONFIG = SANDBOX_KUBECONFIG;
  }
  return base.stage(bridgeArgv(base.socat, argv), extra, stageEnv);
}
