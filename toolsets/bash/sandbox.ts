import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { runCommand } from '../../src/tools/run-command.js';
import { SOCAT_FIX } from './egress-bridge.js';
import { findOnPath, lstatOrNull, readlinkOrNull } from './host-files.js';
import type { SandboxConfig, SandboxMode } from './sandbox-config.js';
import { openSandboxRun, type SandboxRun, type RunOptions } from './sandbox-run.js';

export type { SandboxConfig, SandboxMode } from './sandbox-config.js';

/** Where one command line's stages run: a run per line (its egress proxies, its kubeconfig), and the start-up check. */
export interface Sandbox {
  mode: SandboxMode;
  /** The argv of a stage with no network at all (no egress), and the environment to spawn it with. */
  wrap(argv: string[]): string[];
  env: NodeJS.ProcessEnv;
  /** One line's run: network stages get the egress proxy, kubectl its pinned kubeconfig. Close it when done. */
  open(run: RunOptions): Promise<SandboxRun | { error: string }>;
  /** Null when commands can run here, else why not and the fix. */
  check(): Promise<string | null>;
}

const BASE_ENV = ['PATH', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'USER'];
export const SCRATCH = '/tmp';

/**
 * What the tools need of /etc: CA certificates, the loader cache, alternatives (awk), time zones.
 * No passwd, shadow or keys; no resolv.conf or hosts either: names are resolved by the egress proxy.
 */
const ETC = [
  '/etc/alternatives',
  '/etc/ld.so.cache',
  '/etc/ld.so.conf',
  '/etc/ld.so.conf.d',
  '/etc/nsswitch.conf',
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

const NONE = 'set toolsets.bash.sandbox: none (LESTRADE_BASH_SANDBOX=none)';
const FIX = `install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap), or ${NONE} to run commands without it`;
const NO_NAMESPACES =
  'allow user namespaces (e.g. sysctl kernel.unprivileged_userns_clone=1; in a container, ' +
  `a seccomp/AppArmor profile that permits them), or ${NONE}`;

/**
 * The OS boundary under the bash policy: each stage of an allowed (or approved) line runs in its
 * own bubblewrap sandbox: new user, pid, ipc, uts, cgroup and network namespaces (no stage shares
 * the host's network: curl and kubectl reach out only through Lestrade's egress proxy, see
 * sandbox-run.ts), a private /proc, /usr and the few /etc files the tools need read-only, the
 * configured paths read-only, a fresh tmpfs at /tmp as the only writable place (and HOME), and an
 * environment holding only what the tools need. bwrap itself is started with that same environment:
 * in the pid namespace it is /proc/1, so its environment is what /proc/1/environ shows.
 */
export function createSandbox(cfg: SandboxConfig, hostEnv: NodeJS.ProcessEnv = process.env): Sandbox {
  const env = sandboxEnv(cfg, hostEnv);
  const bwrap = cfg.mode === 'none' ? null : findOnPath('bwrap', hostEnv.PATH ?? '');
  const socat = cfg.mode === 'none' ? null : findOnPath('socat', hostEnv.PATH ?? '');
  const stage = (argv: string[], extra: string[] = [], stageEnv: Record<string, string> = {}) => [
    bwrap ?? 'bwrap',
    '--unshare-all',
    '--die-with-parent',
    '--new-session',
    ...mounts(cfg),
    ...extra,
    '--remount-ro',
    '/',
    '--clearenv',
    ...Object.entries({ ...env, ...stageEnv }).flatMap(([k, v]) => ['--setenv', k, v!]),
    '--chdir',
    SCRATCH,
    '--',
    ...argv,
  ];
  const wrap = cfg.mode === 'none' ? (argv: string[]) => argv : (argv: string[]) => stage(argv);
  const plainEnv = cfg.mode === 'none' ? dropUndefined({ ...env, HOME: hostEnv.HOME, TMPDIR: hostEnv.TMPDIR }) : env;
  return {
    mode: cfg.mode,
    wrap,
    env: plainEnv,
    open: (run) => openSandboxRun({ cfg, hostEnv, env: plainEnv, socat, stage }, run),
    check: () =>
      cfg.mode === 'none' ? Promise.resolve(null) : checkBubblewrap(bwrap, socat, cfg, stage(['true']), env),
  };
}

/** Runs `true` in the sandbox as configured: null when it ran, else why not and the fix. */
async function checkBubblewrap(
  bwrap: string | null,
  socat: string | null,
  cfg: SandboxConfig,
  probe: string[],
  env: NodeJS.ProcessEnv,
) {
  if (!bwrap) return `bwrap (bubblewrap) is not installed: ${FIX}`;
  if (!socat) return `socat is not installed: ${SOCAT_FIX}`;
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

function mounts(cfg: SandboxConfig): string[] {
  const args = ['--ro-bind', '/usr', '/usr'];
  for (const dir of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    const stat = lstatOrNull(dir);
    const link = stat?.isSymbolicLink() ? readlinkOrNull(dir) : null;
    if (link) args.push('--symlink', link, dir);
    else if (stat?.isDirectory()) args.push('--ro-bind', dir, dir);
  }
  for (const path of ETC) args.push('--ro-bind-try', path, path);
  args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', SCRATCH);
  for (const path of cfg.readOnlyPaths) args.push('--ro-bind-try', path, path);
  return args;
}

function sandboxEnv(cfg: SandboxConfig, hostEnv: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const names = [...BASE_ENV, ...cfg.env];
  const pairs = names.flatMap((n): Array<[string, string]> => {
    const value = hostEnv[n];
    return value === undefined ? [] : [[n, value]];
  });
  const env: NodeJS.ProcessEnv = Object.fromEntries(pairs);
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  env.HOME = SCRATCH;
  env.TMPDIR = SCRATCH;
  return env;
}

function dropUndefined(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined));
}
