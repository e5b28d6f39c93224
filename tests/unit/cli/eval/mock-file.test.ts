import { describe, expect, it } from 'vitest';
import { formatMockFile, mockFileName, paramsMatch, parseMockFile } from '../../../../cli/eval/mock-file.js';

const HEADER = '{"toolset_name": "kubernetes/core", "tool_name": "kubectl_describe", "match_params": {"kind": "pod"}}';

describe('HolmesGPT mock files', () => {
  it('reads the current format: header, structured result, then the output', () => {
    const m = parseMockFile(`${HEADER}\n{"status": "success", "error": null}\nName: api-0\nStatus: Running\n`, 'a.txt');
    expect(m).toEqual({
      toolset: 'kubernetes/core',
      tool: 'kubectl_describe',
      matchParams: { kind: 'pod' },
      output: { status: 'success', data: 'Name: api-0\nStatus: Running\n' },
      file: 'a.txt',
    });
  });

  it('reads the older format (output from line 2) and keeps stdout/stderr sections as written', () => {
    const m = parseMockFile(`${HEADER}\nstdout:\nName: api-0\n\nstderr:\n`, 'b.txt');
    expect(m?.output).toEqual({ status: 'success', data: 'stdout:\nName: api-0\n\nstderr:\n' });
  });

  it('maps error and no_data results, and is not fooled by a .txt that is not a mock', () => {
    expect(parseMockFile(`${HEADER}\n{"status": "error", "error": "forbidden"}\n`, 'c')?.output).toEqual({
      status: 'error',
      error: 'forbidden',
    });
    expect(parseMockFile(`${HEADER}\n{"status": "no_data"}\n`, 'd')?.output).toEqual({ status: 'no_data' });
    expect(parseMockFile('just notes\n{"tool_name": "x"}\n', 'e')).toBeNull();
    expect(parseMockFile('{"toolset_name": "x"}\nout\n', 'f')).toBeNull();
  });

  it('matches as HolmesGPT does: every recorded param equal, extra call params ignored, none matches all', () => {
    expect(paramsMatch({ kind: 'pod', name: 'a' }, { kind: 'pod', name: 'a', namespace: 'x' })).toBe(true);
    expect(paramsMatch({ kind: 'pod', name: 'a' }, { kind: 'pod', name: 'b' })).toBe(false);
    expect(paramsMatch({ kind: 'pod', name: 'a' }, { kind: 'pod' })).toBe(false);
    expect(paramsMatch(null, { anything: 1 })).toBe(true);
    expect(paramsMatch({ tail: 100 }, { tail: '100' })).toBe(true);
    // "*" is HolmesGPT's literal unless the case opts in to wildcards.
    expect(paramsMatch({ query: '*' }, { query: 'rate(x[5m])' })).toBe(false);
    expect(paramsMatch({ query: '*' }, { query: '*' })).toBe(true);
    expect(paramsMatch({ query: '*' }, { query: 'rate(x[5m])' }, true)).toBe(true);
    expect(paramsMatch({ query: '*' }, {}, true)).toBe(false);
    // A recorded null is a parameter not given.
    expect(paramsMatch({ filter: null, pod: 'a' }, { pod: 'a' })).toBe(true);
    expect(paramsMatch({ filter: null }, { filter: 'x' })).toBe(false);
    expect(paramsMatch({ sel: { a: 1 } }, { sel: { a: 1 } })).toBe(true);
    expect(paramsMatch({ sel: { a: 1 } }, { sel: '[object Object]' })).toBe(false);
  });

  it('writes files it reads back, named as HolmesGPT names them', () => {
    const entry = { toolset: 'prometheus', tool: 'prometheus_query', matchParams: { query: 'up{job="x"}' } };
    const text = formatMockFile({ ...entry, output: { status: 'success', data: '{"result": []}' } });
    expect(parseMockFile(text, 'f')).toEqual({
      ...entry,
      output: { status: 'success', data: '{"result": []}' },
      file: 'f',
    });
    expect(mockFileName('prometheus_query', { query: 'up{job="x"}' })).toBe('prometheus_query_up_job_x.txt');
    expect(mockFileName('kubectl_get', { namespace: 'a', kind: 'pods' })).toBe('kubectl_get_pods_a.txt');
    expect(mockFileName('prometheus_alerts', {})).toBe('prometheus_alerts.txt');
  });
});
