import type { CallVerdict } from '../../src/tools/types.js';
import { parseOptions } from './options.js';
import { ask, checkOptions, deny } from './verdicts.js';

const READ_VERBS = new Set(['get', 'describe', 'logs', 'top', 'events', 'explain', 'api-resources', 'api-versions', 'version', 'cluster-info']);

/** Verbs that change the cluster (or open a door into it): never run, whatever the arguments. */
const WRITE_VERBS = new Set([
  'delete', 'apply', 'edit', 'exec', 'patch', 'replace', 'create', 'scale', 'drain', 'cordon', 'uncordon', 'taint', 'label',
  'annotate', 'set', 'cp', 'port-forward', 'attach', 'run', 'expose', 'autoscale', 'debug', 'proxy', 'certificate', 'wait',
]);

/** Verbs with read-only subcommands; the others refused. */
const SUBCOMMANDS: Record<string, { read: string[]; why: string }> = {
  rollout: { read: ['status', 'history'], why: 'changes a rollout' },
  auth: { read: ['can-i', 'whoami'], why: 'changes RBAC' },
  config: { read: ['current-context', 'get-contexts'], why: 'changes the kubeconfig' },
};

const SPEC = {
  flags: ['A', 'p', '--all-namespaces', '--previous', '--timestamps', '--show-labels', '--no-headers', '--all-containers', '--ignore-not-found', '--prefix', '--containers', '--show-kind', '--show-managed-fields'],
  valued: ['n', 'o', 'l', 'c', 'L', '--namespace', '--context', '--cluster', '--user', '--kubeconfig', '--request-timeout', '--output', '--selector',
    '--field-selector', '--container', '--tail', '--since', '--since-time', '--sort-by', '--limit-bytes', '--chunk-size', '--label-columns', '--types', '--for'],
  denied: {
    '-w': 'watches and never ends', '--watch': 'watches and never ends', '--watch-only': 'watches and never ends',
    '-f': 'follows and never ends (or reads a file)', '--follow': 'follows and never ends',
  },
  ask: {
    '--as': 'impersonates another user', '--as-group': 'impersonates a group', '--as-uid': 'impersonates another user',
    '--token': 'uses other credentials', '--raw': 'reads any API path (Secrets included)', '-s': 'talks to another API server', '--server': 'talks to another API server',
  },
};

/** kubectl: read verbs allowed, writes refused, Secrets and anything unknown for a human. */
export function checkKubectl(args: string[]): CallVerdict {
  const p = parseOptions(args, SPEC);
  const [verb, ...rest] = p.operands;
  if (verb === undefined) return p.denied.length ? checkOptions('kubectl', p, 0) : ask('kubectl without a verb');
  if (WRITE_VERBS.has(verb)) return deny(`kubectl ${verb} changes the cluster`);
  const sub = Object.hasOwn(SUBCOMMANDS, verb) ? SUBCOMMANDS[verb]! : undefined;
  if (sub) {
    if (rest[0] === undefined || !sub.read.includes(rest[0])) return deny(`kubectl ${verb} ${rest[0] ?? ''} ${sub.why}`.replace(/\s+/g, ' '));
    return checkOptions(`kubectl ${verb}`, { ...p, operands: [] }, 0);
  }
  if (!READ_VERBS.has(verb)) return ask(`kubectl ${verb} is not on the read-only list`);
  if ((verb === 'get' || verb === 'describe') && rest.some(namesSecrets)) return ask(`kubectl ${verb} of Secrets reveals credentials`);
  return checkOptions(`kubectl ${verb}`, { ...p, operands: [] }, 0);
}

/** "secret", "secrets", "secret/x", "pods,secrets", "secrets.v1.": any mention of the Secret kind. */
function namesSecrets(arg: string): boolean {
  return arg.toLowerCase().split(',').some((r) => /^secrets?($|[./])/.test(r));
}
