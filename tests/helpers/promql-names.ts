/** PromQL words that are not metric names: aggregations, keywords, functions are followed by "(". */
const KEYWORDS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'count',
  'stddev',
  'stdvar',
  'topk',
  'bottomk',
  'quantile',
  'count_values',
  'group',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression reads: with strings, label matchers, ranges, grouping
 * clauses and function calls taken out, what is left of the identifiers. Enough for the
 * expressions we ship (tests/unit/deploy/monitoring), not a PromQL parser.
 */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    // Numbers and durations (0.95, 1e3, 5m), not the digits inside a name.
    .replace(/(?<![A-Za-z0-9_:])\d[\w.]*/g, ' ');
  const names = new Set<string>();
  for (const m of stripped.matchAll(/([A-Za-z_:][A-Za-z0-9_:]*)\s*(\()?/g)) {
    const [, word, call] = m;
    if (!word || call || KEYWORDS.has(word.toLowerCase())) continue;
    names.add(word);
  }
  return [...names];
}

/** A histogram's series names (_bucket, _sum, _count) are its own name with a suffix. */
export function exportedSeriesNames(metrics: Array<{ name: string; type: string }>): Set<string> {
  const out = new Set<string>();
  for (const m of metrics) {
    out.add(m.name);
    if (m.type === 'histogram' || m.type === 'summary')
      for (const s of ['_bucket', '_sum', '_count']) out.add(m.name + s);
  }
  return out;
}
