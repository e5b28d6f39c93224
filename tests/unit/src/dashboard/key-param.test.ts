import { describe, expect, it } from 'vitest';
import { keyParam, MAX_KEY_PARAM_CHARS } from '../../../../src/dashboard/key-param.js';

describe("keyParam (a tool call's line before it is expanded)", () => {
  it('shows the parameter that says what the call was about, per kind of tool', () => {
    expect(keyParam({ query: 'rate(http_requests_total{job="api"}[5m])', time: '2026-12-07T10:00:00Z' })).toBe(
      'query=rate(http_requests_total{job="api"}[5m])',
    );
    expect(keyParam({ command: 'kubectl get pods -n prod | grep -v Running' })).toBe(
      'command=kubectl get pods -n prod | grep -v Running',
    );
    // Preferred keys in their order, whatever order the model wrote them in; at most three.
    expect(keyParam({ namespace: 'prod', previous: true, pod: 'api-1', container: 'app', tail: 100 })).toBe(
      'pod=api-1 container=app namespace=prod',
    );
    expect(keyParam({ namespace: 'prod', name: 'api', kind: 'deployment' })).toBe(
      'kind=deployment name=api namespace=prod',
    );
    expect(keyParam({ matchers: ['alertname="X"', 'namespace="prod"'] })).toBe(
      'matchers=alertname="X", namespace="prod"',
    );
  });

  it('falls back to the first text parameter, and is empty when there is none', () => {
    expect(keyParam({ limit: 5, word: 'connections', other: 'x' })).toBe('word=connections');
    expect(keyParam({ limit: 5, all: true })).toBe('');
    expect(keyParam({})).toBe('');
    expect(keyParam(null)).toBe('');
    expect(keyParam('text')).toBe('');
    expect(keyParam({ query: '   ' })).toBe('');
  });

  it('is one line with no control, zero-width or direction-changing characters, clipped with an ellipsis', () => {
    expect(keyParam({ command: 'a\n\tb\u202Ec\u200Bd\u0007e' })).toBe('command=a b c d e');
    const long = keyParam({ query: 'x'.repeat(500) });
    expect([...long]).toHaveLength(MAX_KEY_PARAM_CHARS);
    expect(long.endsWith('…')).toBe(true);
    expect(long.startsWith('query=xxx')).toBe(true);
    // Clipping counts characters, never splitting a surrogate pair.
    expect(keyParam({ query: '😀'.repeat(300) })).toMatch(/^query=(😀)+…$/u);
  });

  it('leaves escaping to the page (nunjucks autoescapes): the text is kept as written', () => {
    expect(keyParam({ query: '<script>alert(1)</script>' })).toBe('query=<script>alert(1)</script>');
  });
});
