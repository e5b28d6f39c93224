/**
 * The first-look and "what changed" tools of toolsets/kubernetes.yaml: the argv each renders, and
 * the parameters each refuses. kubectl is installed but no cluster is: the go-template of
 * kubectl_pods_not_ready is run by the real kubectl on fixture pods (`kubectl annotate --local`
 * applies an output template to objects from a file without a server).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { YamlToolsetSchema, type YamlTool } from '../../../src/tools/yaml-toolset-schema.js';
import { expandArgs, loadYamlToolset } from '../../../src/tools/yaml-toolset.js';
import { BUILTIN_YAML_DIR } from '../../../toolsets/index.js';
import { requireBinary } from '../../helpers/require-binary.js';

const file = join(BUILTIN_YAML_DIR, 'kubernetes.yaml');
const def = YamlToolsetSchema.parse(parse(readFileSync(file, 'utf8')));
const toolset = loadYamlToolset(file);
const tool = (name: string): YamlTool => def.tools.find((t) => t.name === name)!;
const argv = (name: string, params: Record<string, unknown>) => expandArgs(tool(name).command!, params, {});
const accepts = (name: string, params: Record<string, unknown>) =>
  toolset.tools.find((t) => t.name === name)!.params.safeParse(params).success;

describe('what changed: rollout history and status', () => {
  it("asks for a workload's revisions, and one revision's pod template as YAML", () => {
    const base = { kind: 'deployment', name: 'api', namespace: 'prod' };
    expect(argv('kubectl_rollout_history', base)).toEqual([
      'kubectl',
      'rollout',
      'history',
      'deployment/api',
      '--namespace',
      'prod',
    ]);
    expect(argv('kubectl_rollout_history', { ...base, revision: 3 })).toEqual([
      'kubectl',
      'rollout',
      'history',
      'deployment/api',
      '--namespace',
      'prod',
      '--revision=3',
      '-o',
      'yaml',
    ]);
  });

  it('reads the rollout status once, never waiting for it', () => {
    expect(argv('kubectl_rollout_status', { kind: 'statefulset', name: 'db', namespace: 'prod' })).toEqual([
      'kubectl',
      'rollout',
      'status',
      'statefulset/db',
      '--namespace',
      'prod',
      '--watch=false',
    ]);
  });

  it('takes only workload kinds, and names that cannot add a path or a flag', () => {
    expect(accepts('kubectl_rollout_history', { kind: 'deployment', name: 'api', namespace: 'p' })).toBe(true);
    expect(accepts('kubectl_rollout_history', { kind: 'secret', name: 'api', namespace: 'p' })).toBe(false);
    expect(accepts('kubectl_rollout_history', { kind: 'deployment', name: 'a/b', namespace: 'p' })).toBe(false);
    expect(accepts('kubectl_rollout_status', { kind: 'deployment', name: '-w', namespace: 'p' })).toBe(false);
    expect(accepts('kubectl_rollout_history', { kind: 'deployment', name: 'a', namespace: 'p', revision: 0 })).toBe(
      false,
    );
  });
});

describe('first look: pods not ready, warning events, usage against requests', () => {
  it('lists pods of one namespace or of all', () => {
    expect(argv('kubectl_pods_not_ready', { namespace: 'prod' }).slice(0, 4)).toEqual([
      'kubectl',
      'get',
      'pods',
      '--namespace=prod',
    ]);
    const all = argv('kubectl_pods_not_ready', { selector: 'app=api' });
    expect(all.slice(0, 6)).toEqual(['kubectl', 'get', 'pods', '--all-namespaces', '--selector', 'app=api']);
    expect(all.at(-1)).toMatch(/^-o=go-template=\{\{range \.items\}\}/);
  });

  it("keeps only pods that are not Ready and not completed, with each container's reason", () => {
    requireBinary('kubectl');
    const template = argv('kubectl_pods_not_ready', {})
      .at(-1)!
      .replace(/^-o=go-template=/, '');
    // The fixture is a List: `--local` applies the template to each pod, so the per-pod body is run.
    const perPod = template.replace(/^\{\{range \.items\}\}/, '').replace(/\{\{end\}\}$/, '');
    const out = execFileSync(
      'kubectl',
      [
        'annotate',
        '--local',
        '-f',
        join(import.meta.dirname, '../../fixtures/kubernetes/pods-not-ready.json'),
        'x=y',
        `-o=go-template=${perPod}`,
      ],
      { env: { PATH: process.env.PATH, KUBECONFIG: '/dev/null' }, encoding: 'utf8' },
    );
    expect(out.trim().split('\n')).toEqual([
      'prod/api-1 phase=Running api:CrashLoopBackOff,restarts=7,last=OOMKilled',
      'prod/pend-1 phase=Pending',
    ]);
  });

  it('asks for Warning events only, about one object when named', () => {
    expect(argv('kubectl_warning_events', { namespace: 'prod' })).toEqual([
      'kubectl',
      'get',
      'events',
      '--namespace=prod',
      '--field-selector',
      'type=Warning',
      '--sort-by=.lastTimestamp',
    ]);
    expect(argv('kubectl_warning_events', { object_name: 'api-1' })).toEqual([
      'kubectl',
      'get',
      'events',
      '--all-namespaces',
      '--field-selector',
      'type=Warning,involvedObject.name=api-1',
      '--sort-by=.lastTimestamp',
    ]);
    // A comma would add a field selector of the model's own.
    expect(accepts('kubectl_warning_events', { object_name: 'a,type=Normal' })).toBe(false);
  });

  it('reads usage per container and requests and limits per container', () => {
    expect(argv('kubectl_top_pods', { namespace: 'prod', selector: 'app=api' })).toEqual([
      'kubectl',
      'top',
      'pods',
      '--namespace=prod',
      '--selector',
      'app=api',
      '--containers',
    ]);
    // HolmesGPT's kubectl_top_pods takes no namespace: every namespace's pods.
    expect(argv('kubectl_top_pods', {})).toEqual(['kubectl', 'top', 'pods', '--all-namespaces', '--containers']);
    const resources = argv('kubectl_pod_resources', { namespace: 'prod' });
    expect(resources.slice(0, 5)).toEqual(['kubectl', 'get', 'pods', '--namespace', 'prod']);
    expect(resources.at(-1)).toContain('CPU_REQUEST:.spec.containers[*].resources.requests.cpu');
    expect(resources.at(-1)).toContain('MEMORY_LIMIT:.spec.containers[*].resources.limits.memory');
  });

  it('points the model at the first-look and what-changed tools in its instructions', () => {
    for (const name of [
      'kubectl_pods_not_ready',
      'kubectl_warning_events',
      'kubectl_rollout_history',
      'kubectl_top_pods',
    ])
      expect(toolset.instructions).toContain(name);
  });

  it('is read-only throughout', () => {
    expect(toolset.tools.every((t) => !t.sideEffects)).toBe(true);
    const verbs = def.tools.map(
      (t) => (t.command![1] as string) + (t.command![1] === 'rollout' ? ` ${t.command![2] as string}` : ''),
    );
    expect(new Set(verbs)).toEqual(new Set(['get', 'describe', 'logs', 'rollout history', 'rollout status', 'top']));
  });
});
