import { accessSync, constants, existsSync, lstatSync, readlinkSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { runCommand } from '../../src/tools/run-command.js';

export type SandboxMode = 'bubblewrap' | 'none';

export interface SandboxConfig {
  mode: SandboxMode;
  /** Host paths bound read-only at the same place (binaries elsewhere, certificates, cloud CLIs' config). */
  readOnlyPaths: string[];
  /** Environment variables passed in besides the base ones (PATH, locale, KUBECONFIG, in-cluster service). */
  env: string[];
}

/** Where one command line's stages run: the argv to spawn for a stage, and the environment to spawn it with. */
export interface Sandbox {
  mode: SandboxMode;
  wrap(argv: string[]): string[];
  env: NodeJS.ProcessEnv;
  /** Null when commands can run here, else why not and the fix. */
  check(): Promise<string | null>;
}

/** Only these reach the network (kubectl its API server, curl the configured hosts); other stages have none. */
export const NETWORK_PROGRAMS = new Set(['kubectl', 'curl']);

const BASE_ENV = [
  'PATH',
  'LANG',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'USER',
  'KUBERNETES_SERVICE_HOST',
  'KUBERNETES_SERVICE_PORT',
];
const SCRATCH = '/tmp';

/**
 * What the tools need of /etc: name resolution, CA certificates, the loader cache, alternatives (awk),
 * time zones. No passwd, shadow or keys.
 */
const ETC = [
  '/etc/alternatives',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/nsswitch.conf',
  '/etc/host.conf',
  '/etc/gai.conf',
  '/etc/services',
  '/etc/protocols',
  '/etc/ssl/certs',
  '/etc/ssl/openssl.cnf',
  '/etc/pki/tls/certs',
  '/etc/pki/ca-trust',
  '/etc/ca-certificates',
  '/etc/localtime',
  '/etc/timezone',
];
/** A pod's service account (in-cluster kubectl): the token the tools are meant to use. */
const IN_CLUSTER = '/var/run/secrets/kubernetes.io/serviceaccount';

const NONE = 'set toolsets.bash.sandbox: none (LESTRADE_BASH_SANDBOX=none)';
const FIX = `install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap), or ${NONE} to run commands without it`;
const NO_NAMESPACES =
  'allow user namespaces (e.g. sysctl kernel.unprivileged_userns_clone=1; in a container, ' +
  `a seccomp/AppArmor profile that permits them), or ${NONE}`;

/**
 * The OS boundary under the bash policy: each stage of an allowed (or approved) line runs in its
 * own bubblewrap sandbox: new user, pid, ipc, uts, cgroup and network namespaces (the network
 * shared only with kubectl and curl), a private /proc (so /proc/1 is the sandbox's own), /usr and
 * the few /etc files the tools need read-only, the kubeconfig and configured paths read-only, a
 * fresh tmpfs at /tmp as the only writable place (and HOME), and an environment holding only what
 * the tools need. bwrap itself is started with that same environment: in the pid namespace it is
 * /proc/1, so its environment is what /proc/1/environ shows.
 */
export function createSandbox(cfg: SandboxConfig, hostEnv: NodeJS.ProcessEnv = process.env): Sandbox {
  const kube = kubeconfigFiles(hostEnv);
  const env = sandboxEnv(cfg, hostEnv, kube);
  if (cfg.mode === 'none') {
    const plain = { ...env, HOME: hostEnv.HOME, TMPDIR: hostEnv.TMPDIR };
    return { mode: 'none', wrap: (argv) => argv, env: dropUndefined(plain), check: async () => null };
  }
  const bwrap = findOnPath('bwrap', hostEnv.PATH ?? '');
  const setenv = Object.entries(env).flatMap(([k, v]) => ['--setenv', k, v!]);
  const common = [...mounts(cfg, kube), '--clearenv', ...setenv, '--chdir', SCRATCH];
  const wrap = (argv: string[]) => [
    bwrap ?? 'bwrap',
    '--unshare-all',
    ...(NETWORK_PROGRAMS.has(argv[0]!) ? ['--share-net'] : []),
    '--die-with-parent',
    '--new-session',
    ...common,
    '--',
    ...argv,
  ];
  return { mode: 'bubblewrap', wrap, env, check: () => checkBubblewrap(bwrap, cfg, wrap(['true']), env) };
}

/** Runs `true` in the sandbox as configured: null when it ran, else why not and the fix. */
async function checkBubblewrap(bwrap: string | null, cfg: SandboxConfig, probe: string[], env: NodeJS.ProcessEnv) {
  if (!bwrap) return `bwrap (bubblewrap) is not installed: ${FIX}`;
  const missing = cfg.readOnlyPaths.find((p) => !isAbsolute(p) || !existsSync(p));
  if (missing) return `toolsets.bash.readOnlyPaths: ${JSON.stringify(missing)} is not an absolute path that exists`;
  const out = await runCommand(probe, { timeoutMs: 10_000, maxBytes: 4096, env }).catch((e: Error) => ({
    exitCode: -1,
    stderr: e.message,
    stdout: '',
  }));
  if (out.exitCode === 0) return null;
  const why = (out.stderr || out.stdout).trim().split('\n').at(-1)?.slice(0, 300) ?? '';
  return `bubblewrap cannot create its namespaces here (${why || `exit ${out.exitCode}`}): ${NO_NAMESPACES}`;
}

function mounts(cfg: SandboxConfig, kube: string[]): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const dir of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    const stat = lstatOrNull(dir);
    if (stat?.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else if (stat?.isDirectory()) args.push('--ro-bind', dir, dir);
  }
  for (const path of ETC) args.push('--ro-bind-try', path, path);
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', SCRATCH);
  for (const path of [...kube, IN_CLUSTER, ...cfg.readOnlyPaths]) args.push('--ro-bind-try', path, path);
  // The root itself (a tmpfs bwrap made) read-only too: /tmp is the one writable place.
  args.push('--remount-ro', '/');
  return args;
}

/** The kubeconfig files kubectl would read: $KUBECONFIG's list, else ~/.kube/config. */
function kubeconfigFiles(hostEnv: NodeJS.ProcessEnv): string[] {
  let list: string[] = [];
  if (hostEnv.KUBECONFIG) list = hostEnv.KUBECONFIG.split(delimiter);
  else if (hostEnv.HOME) list = [join(hostEnv.HOME, '.kube', 'config')];
  return list.filter((p) => p !== '' && isAbsolute(p) && existsSync(p));
}

function sandboxEnv(cfg: SandboxConfig, hostEnv: NodeJS.ProcessEnv, kube: string[]): NodeJS.ProcessEnv {
  const names = [...BASE_ENV, ...cfg.env];
  const pairs = names.flatMap((n): Array<[string, string]> => {
    const value = hostEnv[n];
    return value === undefined ? [] : [[n, value]];
  });
  const env: NodeJS.ProcessEnv = Object.fromEntries(pairs);
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  env.HOME = SCRATCH;
  env.TMPDIR = SCRATCH;
  if (kube.length) env.KUBECONFIG = kube.join(delimiter);
  return env;
}

function findOnPath(name: string, path: string): string | null {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder: try the next
    }
  }
  return null;
}

function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

function dropUndefined(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined));
}
