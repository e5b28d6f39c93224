/**
 * The investigation tools HolmesGPT's fetch_pod_logs and kubectl_find_resource stand for, in
 * toolsets/kubernetes.yaml: the argv each renders for a filter, a line limit, a start time, the
 * previous or all containers (the narrowing itself: tests/unit/src/tools/line-filter.test.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { YamlToolsetSchema, type YamlTool } from '../../../src/tools/yaml-toolset-schema.js';
import { expandArgs, loadYamlToolset } from '../../../src/tools/yaml-toolset.js';
import { BUILTIN_YAML_DIR } from '../../../toolsets/index.js';

const file = join(BUILTIN_YAML_DIR, 'kubernetes.yaml');
const def = YamlToolsetSchema.parse(parse(readFileSync(file, 'utf8')));
const toolset = loadYamlToolset(file);
const tool = (name: string): YamlTool => def.tools.find((t) => t.name === name)!;
const argv = (name: string, params: Record<string, unknown>) => expandArgs(tool(name).command!, params, {});
const accepts = (name: string, params: Record<string, unknown>) =>
  toolset.tools.find((t) => t.name === name)!.params.safeParse(params).success;
const base = { pod: 'api-0', namespace: 'shop' };

describe('kubectl_logs', () => {
  it('reads the last 200 lines by default, or the tail asked for', () => {
    expect(argv('kubectl_logs', base)).toEqual(['kubectl', 'logs', 'api-0', '--namespace', 'shop', '--tail=200']);
    expect(argv('kubectl_logs', { ...base, tail: 5 }).at(-1)).toBe('--tail=5');
  });

  it('reads the previous container, or every container with each line prefixed', () => {
    expect(argv('kubectl_logs', { ...base, previous: true })).toContain('--previous');
    expect(argv('kubectl_logs', { ...base, all_containers: true, previous: true })).toEqual([
      'kubectl',
      'logs',
      'api-0',
      '--namespace',
      'shop',
      '--previous',
      '--all-containers',
      '--prefix',
      '--tail=200',
    ]);
  });

  it('takes a start time as seconds before now, a duration, a date or an RFC3339 time', () => {
    const since = (start_time: string) => argv('kubectl_logs', { ...base, start_time }).at(-2);
    expect(since('-3600')).toBe('--since=3600s');
    expect(since('2h')).toBe('--since=2h');
    expect(since('2025-06-12')).toBe('--since-time=2025-06-12T00:00:00Z');
    expect(since('2025-06-12T10:00:00Z')).toBe('--since-time=2025-06-12T10:00:00Z');
    expect(accepts('kubectl_logs', { ...base, start_time: '-3600' })).toBe(true);
    expect(accepts('kubectl_logs', { ...base, start_time: '--all-namespaces' })).toBe(false);
    expect(accepts('kubectl_logs', { ...base, start_time: 'yesterday' })).toBe(false);
  });

  it('reads up to 10000 lines when filtering, so the limit applies to the lines that matched', () => {
    expect(argv('kubectl_logs', { ...base, filter: 'error', tail: 5 }).at(-1)).toBe('--tail=10000');
    expect(argv('kubectl_logs', { ...base, exclude_filter: 'health' }).at(-1)).toBe('--tail=10000');
    expect(tool('kubectl_logs').lines).toEqual({ filter: 'filter', exclude: 'exclude_filter', limit: 'tail' });
  });

  it('takes a filter that starts with a dash (it never reaches kubectl)', () => {
    expect(accepts('kubectl_logs', { ...base, filter: '-ERR' })).toBe(true);
    expect(argv('kubectl_logs', { ...base, filter: '-ERR' })).not.toContain('-ERR');
  });
});

describe('kubectl_find_resource', () => {
  it('lists the kind in every namespace with labels, and keeps the lines with the keyword', () => {
    expect(argv('kubectl_find_resource', { kind: 'pods', keyword: 'checkout' })).toEqual([
      'kubectl',
      'get',
      'pods',
      '--all-namespaces',
      '--show-labels',
      '-o',
      'wide',
    ]);
    expect(argv('kubectl_find_resource', { kind: '*', keyword: 'checkout' })[2]).toBe('all');
    expect(tool('kubectl_find_resource').lines).toEqual({ filter: 'keyword' });
    expect(accepts('kubectl_find_resource', { kind: 'pods;rm', keyword: 'x' })).toBe(false);
  });
});

describe('kubectl_events', () => {
  it('selects events by object name, by kind, or both in one selector', () => {
    const selector = (p: Record<string, unknown>) =>
      argv('kubectl_events', { namespace: 'shop', ...p }).filter((a) => a.startsWith('--field-selector'));
    expect(selector({ object_name: 'api-0' })).toEqual(['--field-selector=involvedObject.name=api-0']);
    expect(selector({ kind: 'pod' })).toEqual(['--field-selector=involvedObject.kind=Pod']);
    expect(new Set(selector({ object_name: 'api-0', kind: 'Deployment' }))).toEqual(
      new Set(['--field-selector=involvedObject.name=api-0,involvedObject.kind=Deployment']),
    );
  });
});
