import type { CallVerdict } from '../../src/tools/types.js';
import { checkCurl } from './curl-rules.js';
import { checkKubectl } from './kubectl-rules.js';
import { parseCommand } from './parse-command.js';
import { checkAwk } from './awk-rules.js';
import { checkJq } from './jq-rules.js';
import { TEXT_RULES } from './text-rules.js';
import { allow, ask, deny, strictest } from './verdicts.js';

export interface BashPolicyConfig {
  /** Command prefixes (whole words: "kubectl get pods") that run without asking, unless refused by the built-in rules. */
  allow: string[];
  /** Command prefixes always refused. */
  deny: string[];
  /** Hosts (host:port, or host for ports 80 and 443) that curl may GET from; the egress proxy reaches nothing else. */
  curlHosts: string[];
  /** The most stages one line may have (each is a process in its own sandbox); 8 when not said. */
  maxStages?: number;
}

export const DEFAULT_MAX_STAGES = 8;

/** Commands that change or destroy things, run other programs, or open shells: refused, whatever the arguments. */
const DANGEROUS: Record<string, string> = Object.assign(Object.create(null) as Record<string, string>, {
  rm: 'deletes files',
  rmdir: 'deletes folders',
  mv: 'moves files',
  cp: 'writes files',
  dd: 'writes devices and files',
  shred: 'destroys files',
  truncate: 'empties files',
  chmod: 'changes permissions',
  chown: 'changes owners',
  chgrp: 'changes owners',
  ln: 'writes links',
  mkdir: 'writes folders',
  touch: 'writes files',
  tee: 'writes files',
  install: 'writes files',
  sed: 'can write files (-i, w) and run commands (e)',
  kill: 'stops processes',
  killall: 'stops processes',
  pkill: 'stops processes',
  shutdown: 'stops the machine',
  reboot: 'restarts the machine',
  halt: 'stops the machine',
  poweroff: 'stops the machine',
  systemctl: 'controls services',
  service: 'controls services',
  sudo: 'runs commands as another user',
  su: 'runs commands as another user',
  doas: 'runs commands as another user',
  sh: 'runs a shell',
  bash: 'runs a shell',
  zsh: 'runs a shell',
  dash: 'runs a shell',
  ksh: 'runs a shell',
  fish: 'runs a shell',
  busybox: 'runs other commands',
  eval: 'runs other commands',
  exec: 'runs other commands',
  source: 'runs other commands',
  xargs: 'runs other commands',
  nohup: 'runs other commands',
  env: 'runs other commands (and prints the environment)',
  timeout: 'runs other commands',
  watch: 'runs other commands',
  nice: 'runs other commands',
  find: 'runs commands (-exec) and deletes files (-delete)',
  python: 'runs code',
  python3: 'runs code',
  perl: 'runs code',
  ruby: 'runs code',
  node: 'runs code',
  nc: 'opens network connections',
  ncat: 'opens network connections',
  socat: 'opens network connections',
  ssh: 'runs commands elsewhere',
  scp: 'copies files',
  rsync: 'copies files',
  wget: 'downloads files',
  crontab: 'schedules commands',
  at: 'schedules commands',
  mkfs: 'formats disks',
  mount: 'mounts filesystems',
  umount: 'unmounts filesystems',
  iptables: 'changes the firewall',
  helm: 'installs and removes releases',
});

/**
 * Decides one command line: refused (with why), needs a human (with why), or allowed. The line is
 * parsed with a real shell grammar; each pipeline stage is checked on its own and the strictest
 * verdict wins. The same function runs again just before execution.
 */
export async function checkCommand(
  text: string,
  cfg: BashPolicyConfig,
): Promise<{ verdict: CallVerdict; stages: string[][] }> {
  if (/[\n\r]/.test(text))
    return { verdict: deny('newlines are not allowed: one command (or pipeline) per call'), stages: [] };
  const odd = suspiciousCharacter(text);
  if (odd) return { verdict: deny(odd), stages: [] };
  const parsed = await parseCommand(text);
  if (!parsed.ok) return { verdict: deny(parsed.reason), stages: [] };
  const max = cfg.maxStages ?? DEFAULT_MAX_STAGES;
  if (parsed.stages.length > max)
    return {
      verdict: deny(
        `a pipeline of ${parsed.stages.length} stages is more than toolsets.bash.maxStages (${max}): narrow it to ${max} stages or fewer, or raise toolsets.bash.maxStages`,
      ),
      stages: [],
    };
  return { verdict: strictest(parsed.stages.map((argv) => checkStage(argv, cfg))), stages: parsed.stages };
}

function checkStage(argv: string[], cfg: BashPolicyConfig): CallVerdict {
  const [name = '', ...args] = argv;
  if (!/^[A-Za-z0-9][A-Za-z0-9._+-]*$/.test(name))
    return deny(`${JSON.stringify(name)} is not a plain command name (paths and odd characters are refused)`);
  const denied = cfg.deny.find((prefix) => hasPrefix(argv, prefix));
  if (denied !== undefined) return deny(`matches the configured deny prefix "${denied}"`);
  if (Object.hasOwn(DANGEROUS, name) || /^mkfs\./.test(name))
    return deny(`${name} ${DANGEROUS[name] ?? 'formats disks'}`);
  const builtin = builtinVerdict(name, args, cfg);
  // The configured allow list lifts "ask" to "allow"; it never overrides a refusal.
  if (builtin.decision === 'ask' && cfg.allow.some((prefix) => hasPrefix(argv, prefix))) return allow;
  return builtin;
}

function builtinVerdict(name: string, args: string[], cfg: BashPolicyConfig): CallVerdict {
  if (name === 'kubectl') return checkKubectl(args);
  if (name === 'curl') return checkCurl(args, cfg.curlHosts);
  if (name === 'awk' || name === 'gawk' || name === 'mawk') return checkAwk(args);
  if (name === 'jq') return checkJq(args);
  const rule = Object.hasOwn(TEXT_RULES, name) ? TEXT_RULES[name] : undefined;
  return rule ? rule(args) : ask(`${name} is not on the read-only list`);
}

/** Whole-word prefix: "kubectl get" matches "kubectl get pods", not "kubectl getx". */
function hasPrefix(argv: string[], prefix: string): boolean {
  const words = prefix.trim().split(/\s+/).filter(Boolean);
  return words.length > 0 && words.every((w, i) => argv[i] === w);
}

/**
 * Characters that make text look like something it is not: invisible or direction-changing ones,
 * control characters, odd spaces, and letters or signs that normalise to ASCII (fullwidth ；, ｒm).
 */
function suspiciousCharacter(text: string): string | null {
  for (const ch of text) {
    const code = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    if (/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(ch) && ch !== '\t')
      return `control, invisible or direction-changing character ${code} is not allowed`;
    if (ch > '\x7f' && /\p{Zs}/u.test(ch)) return `unusual space ${code} is not allowed`;
    if (ch > '\x7f' && /^[\x21-\x7e]+$/.test(ch.normalize('NFKC')))
      return `character "${ch}" (${code}) looks like "${ch.normalize('NFKC')}" and is not allowed`;
  }
  return null;
}
