import { describe, expect, it } from 'vitest';
import { expressionFromGeneratorUrl, vectorSelectors } from '../../../../toolsets/prometheus/expression-selectors.js';

describe('the series selectors of a PromQL expression', () => {
  it('finds every vector selector once, in order, through functions, aggregations, ranges, offsets and operators', () => {
    expect(
      vectorSelectors(
        'sum by (job) (rate(http_requests_total{job="api",code=~"5.."}[5m] offset 1m)) / on(job) group_left up > 0.05 ' +
          'and {__name__="x"} or up',
      ),
    ).toEqual({ selectors: ['http_requests_total{job="api",code=~"5.."}', 'up', '{__name__="x"}'] });
    expect(vectorSelectors('histogram_quantile(0.9, sum by (le) (rate(x_bucket[5m])))')).toEqual({
      selectors: ['x_bucket'],
    });
    expect(vectorSelectors('max_over_time(foo[1h:5m])')).toEqual({ selectors: ['foo'] });
  });

  it('does not take label names, function names, keywords or strings for metrics', () => {
    expect(
      vectorSelectors('label_replace(absent(up{job="sum"}), "rate", "$1", "job", "(.*)") unless on(rate) bool_x'),
    ).toEqual({ selectors: ['up{job="sum"}', 'bool_x'] });
    expect(vectorSelectors('count_values("by", build_info)')).toEqual({ selectors: ['build_info'] });
  });

  it('says where an expression does not parse, and when it reads no series', () => {
    expect(vectorSelectors('up{')).toEqual({
      error: expect.stringMatching(/^the expression does not parse at character 4/),
    });
    expect(vectorSelectors('sum(rate(x[5m])')).toMatchObject({ error: expect.stringMatching(/does not parse/) });
    expect(vectorSelectors('1 + 2')).toEqual({ error: 'the expression reads no series (no vector selector in it)' });
  });
});

describe("an alert's generatorURL", () => {
  it('gives its g0.expr, decoded, whatever the host', () => {
    expect(
      expressionFromGeneratorUrl('http://evil.example:9090/graph?g0.expr=up%7Bjob%3D%22api%22%7D+%3D%3D+0&g0.tab=1'),
    ).toEqual({ expression: 'up{job="api"} == 0' });
  });

  it('says when it is not a URL or carries no expression', () => {
    expect(expressionFromGeneratorUrl('graph?g0.expr=up')).toEqual({ error: 'generatorURL is not a URL' });
    expect(expressionFromGeneratorUrl('http://prom/graph?g1.expr=up')).toEqual({
      error: 'generatorURL has no g0.expr parameter: pass the expression instead',
    });
  });
});
