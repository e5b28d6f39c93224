import { parser } from '@prometheus-io/lezer-promql';

/**
 * The vector selectors a PromQL expression reads (`http_requests_total{job="api"}`, `{__name__="up"}`), in
 * order of appearance, each once: parsed with Prometheus' own lezer grammar, never with regexes.
 */
export function vectorSelectors(expression: string): { selectors: string[] } | { error: string } {
  const tree = parser.parse(expression);
  let error: string | null = null;
  tree.iterate({
    enter: (node) => {
      if (!node.type.isError || error !== null) return;
      const near = JSON.stringify(expression.slice(node.from, node.from + 20));
      error = `the expression does not parse at character ${node.from + 1}: ${near}`;
    },
  });
  const selectors: string[] = [];
  tree.iterate({
    enter: (node) => {
      if (node.name !== 'VectorSelector') return undefined;
      const text = expression.slice(node.from, node.to).trim();
      if (!selectors.includes(text)) selectors.push(text);
      return false;
    },
  });
  if (error !== null) return { error };
  if (selectors.length === 0) return { error: 'the expression reads no series (no vector selector in it)' };
  return { selectors };
}

/**
 * The expression of an alert's generatorURL (Prometheus writes `…/graph?g0.expr=…&g0.tab=1`). Only the
 * expression is taken: the URL's host is third-party data and is never contacted.
 */
export function expressionFromGeneratorUrl(generatorUrl: string): { expression: string } | { error: string } {
  let url: URL;
  try {
    url = new URL(generatorUrl);
  } catch {
    return { error: 'generatorURL is not a URL' };
  }
  const expression = url.searchParams.get('g0.expr')?.trim();
  return expression ? { expression } : { error: 'generatorURL has no g0.expr parameter: pass the expression instead' };
}
