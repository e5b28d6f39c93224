/**
 * Which recorded output answers a call (issue 36): HolmesGPT's names and parameters map onto ours one to one,
 * so a mock of another tool never answers, the most specific mock wins, and "*" is a literal unless the case
 * opts in.
 */
import { describe, expect, it } from 'vitest';
import { mockToolsets } from '../../../../cli/eval/mock-tools.js';
import { parseMockFile, type MockEntry } from '../../../../cli/eval/mock-file.js';
import { recordedCall } from '../../../../cli/eval/replay.js';
import { loadAliases } from '../../../../cli/eval/tool-aliases.js';
import { loadYamlToolset } from '../../../../src/tools/yaml-toolset.js';
import { BUILTIN_YAML_DIR } from '../../../../toolsets/index.js';
import { join } from 'node:path';

const aliases = loadAliases([]);
const kubernetes = loadYamlToolset(join(BUILTIN_YAML_DIR, 'kubernetes.yaml'));

function mock(tool: string, params: Record<string, unknown> | null, file = `${tool}.txt`): MockEntry {
  const header = JSON.stringify({ toolset_name: 'kubernetes/core', tool_name: tool, match_params: params });
  return parseMockFile(`${header}\noutput of ${file}\n`, file)!;
}

/** Which mock file answers each call (null: none), through the mocked tools' own run. */
async function answers(mocks: MockEntry[], calls: Array<[string, Record<string, unknown>]>, wildcards = false) {
  const mocked = mockToolsets([kubernetes], mocks, aliases, {}, { wildcards });
  const tools = new Map(mocked.tools.map((t) => [t.name, t]));
  for (const [tool, params] of calls) {
    await tools.get(tool)!.run(params, { signal: new AbortController().signal, approved: false });
  }
  return mocked.calls.map((c) => c.mock);
}

describe('a mock of another HolmesGPT tool never answers', () => {
  it("kubectl_find_resource's mock answers our kubectl_find_resource, never kubectl_get", async () => {
    const mocks = [mock('kubectl_find_resource', { kind: 'pod', keyword: 'api' }, 'a.txt')];
    expect(await answers(mocks, [['kubectl_get', { kind: 'pod' }]])).toEqual([null]);
    expect(await answers(mocks, [['kubectl_find_resource', { kind: 'pod', keyword: 'api' }]])).toEqual(['a.txt']);
  });

  it('tells kubectl_get_by_name, _by_kind_in_namespace and _by_kind_in_cluster apart by the call', async () => {
    const mocks = [
      mock('kubectl_get_by_kind_in_namespace', { kind: 'pod', namespace: 'shop' }, 'a_ns.txt'),
      mock('kubectl_get_by_name', { kind: 'pod', name: 'api-0', namespace: 'shop' }, 'b_name.txt'),
      mock('kubectl_get_by_kind_in_cluster', { kind: 'pod' }, 'c_cluster.txt'),
    ];
    expect(
      await answers(mocks, [
        ['kubectl_get', { kind: 'pod', name: 'api-0', namespace: 'shop' }],
        ['kubectl_get', { kind: 'pod', namespace: 'shop' }],
        ['kubectl_get', { kind: 'pod', all_namespaces: true }],
        ['kubectl_get', { kind: 'pod', selector: 'app=api', namespace: 'shop' }],
      ]),
    ).toEqual(['b_name.txt', 'a_ns.txt', 'c_cluster.txt', null]);
  });

  it("previous and all-containers logs are answered by their own tool's mock, never by plain logs'", async () => {
    const p = { pod_name: 'api-0', namespace: 'shop' };
    const mocks = [
      mock('kubectl_logs', p, 'a_logs.txt'),
      mock('kubectl_logs_all_containers', p, 'b_all.txt'),
      mock('kubectl_previous_logs', p, 'c_prev.txt'),
      mock('kubectl_previous_logs_all_containers', p, 'd_prev_all.txt'),
    ];
    const ours = { pod: 'api-0', namespace: 'shop' };
    expect(
      await answers(mocks, [
        ['kubectl_logs', { ...ours, previous: true, all_containers: true }],
        ['kubectl_logs', { ...ours, previous: true }],
        ['kubectl_logs', { ...ours, all_containers: true }],
        ['kubectl_logs', { ...ours, previous: false }],
      ]),
    ).toEqual(['d_prev_all.txt', 'c_prev.txt', 'b_all.txt', 'a_logs.txt']);
  });

  it("maps fetch_pod_logs's filter, limit and start_time onto ours; the most specific mock wins", async () => {
    const mocks = [
      mock('fetch_pod_logs', { pod_name: 'api-0', namespace: 'shop' }, 'a.txt'),
      mock('fetch_pod_logs', { pod_name: 'api-0', namespace: 'shop', filter: 'error', limit: 50 }, 'b.txt'),
      mock('fetch_pod_logs', { pod_name: 'api-0', namespace: 'shop', start_time: '-3600' }, 'c.txt'),
    ];
    const ours = { pod: 'api-0', namespace: 'shop' };
    expect(
      await answers(mocks, [
        ['kubectl_logs', { ...ours, filter: 'error', tail: 50 }],
        ['kubectl_logs', { ...ours, start_time: '-3600' }],
        ['kubectl_logs', ours],
        ['kubectl_logs', { ...ours, previous: true }],
      ]),
    ).toEqual(['b.txt', 'c.txt', 'a.txt', null]);
  });
});

describe('"*" in match_params', () => {
  it('is a literal, as in HolmesGPT, unless the case sets lestrade_wildcards', async () => {
    const mocks = [mock('kubectl_describe', { kind: 'pod', name: '*' }, 'a.txt')];
    const call: [string, Record<string, unknown>] = ['kubectl_describe', { kind: 'pod', name: 'api-0' }];
    expect(await answers(mocks, [call])).toEqual([null]);
    expect(await answers(mocks, [call], true)).toEqual(['a.txt']);
    expect(await answers(mocks, [['kubectl_describe', { kind: 'pod', name: '*' }]])).toEqual(['a.txt']);
  });
});

describe('recordedCall (what the replay and the scripted model call)', () => {
  const ours = new Map(kubernetes.tools.map((t) => [t.name, t] as const));

  it("renames HolmesGPT's parameters, adds the alias's fixed values and leaves out nulls", () => {
    const prev = mock('kubectl_previous_logs', { pod_name: 'api-0', namespace: 'shop' });
    expect(recordedCall(prev, aliases, ours)).toEqual({
      tool: 'kubectl_logs',
      params: { pod: 'api-0', namespace: 'shop', previous: true },
      dropped: [],
    });
    const logs = mock('fetch_pod_logs', { pod_name: 'a', namespace: 'b', filter: null, end_time: 'x', limit: 5 });
    expect(recordedCall(logs, aliases, ours)).toEqual({
      tool: 'kubectl_logs',
      params: { pod: 'a', namespace: 'b', tail: 5 },
      dropped: ['end_time'],
    });
  });

  it('calls a tool we do not have by its recorded name and parameters', () => {
    expect(recordedCall(mock('kubectl_lineage_children', { kind: 'deployment' }), aliases, ours)).toEqual({
      tool: 'kubectl_lineage_children',
      params: { kind: 'deployment' },
      dropped: [],
    });
  });
});
