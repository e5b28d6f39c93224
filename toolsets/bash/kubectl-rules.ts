import type { CallVerdict } from '../../src/tools/types.js';
import { parseOptions, type OptionSpec } from './options.js';
import { allow, ask, checkOptions, deny } from './verdicts.js';

const READ_VERBS = new Set([
  'get',
  'describe',
  'logs',
  'top',
  'events',
  'explain',
  'api-resources',
  'api-versions',
  'version',
  'cluster-info',
]);

/** Verbs that change the cluster (or open a door into it): never run, whatever the arguments. */
const WRITE_VERBS = new Set([
  'delete',
  'apply',
  'edit',
  'exec',
  'patch',
  'replace',
  'create',
  'scale',
  'drain',
  'cordon',
  'uncordon',
  'taint',
  'label',
  'annotate',
  'set',
  'cp',
  'port-forward',
  'attach',
  'run',
  'expose',
  'autoscale',
  'debug',
  'proxy',
  'certificate',
  'wait',
]);

/** Verbs with read-only subcommands; the others refused. */
const SUBCOMMANDS: Record<string, { read: string[]; why: string }> = {
  rollout: { read: ['status', 'history'], why: 'changes a rollout' },
  auth: { read: ['can-i', 'whoami'], why: 'changes RBAC' },
  config: { read: ['current-context', 'get-contexts'], why: 'changes the kubeconfig' },
};

const READS_FILE = 'reads a file on the Lestrade host';
const WRITES = 'writes a file';
/**
 * The cluster and the identity are Lestrade's choice, not the model's: the sandbox's kubeconfig,
 * written by Lestrade, holds one context (sandbox-kubeconfig.ts), and every option that would pick
 * another one, another server or other credentials is refused.
 */
const PINNED =
  'picks the identity or the cluster, and Lestrade pins the identity and the cluster (the sandbox kubeconfig holds one context: toolsets.bash.kubeContext)';
const IDENTITY = [
  '--context',
  '--cluster',
  '--user',
  '--kubeconfig',
  '--token',
  '--server',
  '-s',
  '--as',
  '--as-group',
  '--as-uid',
  '--certificate-authority',
  '--client-certificate',
  '--client-key',
  '--username',
  '--password',
  '--insecure-skip-tls-verify',
  '--tls-server-name',
];

/**
 * The identity and the cluster are pinned (above); --kuberc, -f, -k and templates are files
 * kubectl reads (and quotes in its errors), for a human.
 */
const SPEC: OptionSpec = {
  flags: [
    'A',
    'p',
    '--all-namespaces',
    '--previous',
    '--timestamps',
    '--show-labels',
    '--no-headers',
    '--all-containers',
    '--ignore-not-found',
    '--prefix',
    '--containers',
    '--show-kind',
    '--show-managed-fields',
  ],
  valued: [
    'n',
    'o',
    'l',
    'c',
    'L',
    's',
    '--namespace',
    '--context',
    '--cluster',
    '--user',
    '--request-timeout',
    '--output',
    '--selector',
    '--field-selector',
    '--container',
    '--tail',
    '--since',
    '--since-time',
    '--sort-by',
    '--limit-bytes',
    '--chunk-size',
    '--label-columns',
    '--types',
    '--for',
    '--kubeconfig',
    '--as',
    '--as-group',
    '--as-uid',
    '--token',
    '--server',
    '--certificate-authority',
    '--client-certificate',
    '--client-key',
    '--tls-server-name',
    '--username',
    '--password',
    '--cache-dir',
    '--kuberc',
    '--template',
    '--filename',
    '--kustomize',
    '--raw',
    'k',
    '--profile',
    '--profile-output',
    '--log-file',
    '--log-dir',
  ],
  denied: {
    ...Object.fromEntries(IDENTITY.map((name) => [name, PINNED])),
    '-w': 'watches and never ends',
    '--watch': 'watches and never ends',
    '--watch-only': 'watches and never ends',
    '-f': 'follows and never ends (or reads a file)',
    '--follow': 'follows and never ends',
    '--profile': WRITES,
    '--profile-output': WRITES,
    '--log-file': WRITES,
    '--log-dir': WRITES,
  },
  ask: {
    '--raw': 'reads any API path (Secrets included)',
    '--kuberc': READS_FILE,
    '--filename': READS_FILE,
    '-k': READS_FILE,
    '--kustomize': READS_FILE,
    '--cache-dir': WRITES,
    '--template': 'takes a template that may be a file path',
  },
};

/** -o values kubectl prints with and nothing else: no file is read. "custom-columns=", "jsonpath=" ... take their text. */
const PLAIN_OUTPUTS = new Set(['json', 'yaml', 'wide', 'name', 'kyaml']);
const TEXT_OUTPUTS = ['custom-columns=', 'go-template=', 'template=', 'jsonpath=', 'jsonpath-as-json='];

/** kubectl: read verbs allowed, writes refused, Secrets and anything unknown for a human. */
export function checkKubectl(args: string[]): CallVerdict {
  const p = parseOptions(args, SPEC);
  const output = checkOutputs(p.options);
  if (output.decision === 'deny') return output;
  const verdict = checkVerb(p);
  return verdict.decision === 'allow' ? output : verdict;
}

function checkVerb(p: ReturnType<typeof parseOptions>): CallVerdict {
  const [verb, ...rest] = p.operands;
  if (verb === undefined) return p.denied.length ? checkOptions('kubectl', p, 0) : ask('kubectl without a verb');
  if (WRITE_VERBS.has(verb)) return deny(`kubectl ${verb} changes the cluster`);
  const sub = Object.hasOwn(SUBCOMMANDS, verb) ? SUBCOMMANDS[verb]! : undefined;
  if (sub) {
    if (rest[0] === undefined || !sub.read.includes(rest[0]))
      return deny(`kubectl ${verb} ${rest[0] ?? ''} ${sub.why}`.replace(/\s+/g, ' '));
    return checkOptions(`kubectl ${verb}`, { ...p, operands: [] }, 0);
  }
  if (!READ_VERBS.has(verb)) return ask(`kubectl ${verb} is not on the read-only list`);
  if (verb === 'cluster-info' && rest.length > 0)
    return ask('kubectl cluster-info dump prints everything in the cluster (and can write files)');
  if ((verb === 'get' || verb === 'describe') && rest.some(namesSecrets))
    return ask(`kubectl ${verb} of Secrets reveals credentials`);
  return checkOptions(`kubectl ${verb}`, { ...p, operands: [] }, 0);
}

/**
 * -o go-template-file=, jsonpath-file=, templatefile=, custom-columns-file= print any file kubectl
 * can read: refused. Known formats run; anything else is for a human. kubectl also takes -o=x.
 */
function checkOutputs(options: Array<{ name: string; value?: string }>): CallVerdict {
  for (const o of options) {
    if (o.name !== '-o' && o.name !== '--output') continue;
    const value = (o.value ?? '').replace(/^=/, '');
    const format = value.split('=')[0]!.toLowerCase();
    if (format.includes('file')) return deny(`kubectl -o ${format} ${READS_FILE}`);
    if (PLAIN_OUTPUTS.has(value.toLowerCase())) continue;
    if (TEXT_OUTPUTS.some((t) => value.startsWith(t))) continue;
    return ask(`kubectl -o ${JSON.stringify(value)} is not a known output format`);
  }
  return allow;
}

/** "secret", "secrets", "secret/x", "pods,secrets", "secrets.v1.": any mention of the Secret kind. */
function namesSecrets(arg: string): boolean {
  return arg
    .toLowerCase()
    .split(',')
    .some((r) => /^secrets?($|[./])/.test(r));
}
