/** One log stream as Loki returns it: its labels, and [nanoseconds, line] pairs. */
export interface LokiStream {
  stream: Record<string, string>;
  values: [string, string][];
}

/** One series of a metric query (`rate(...)`, `count_over_time(...)`): [seconds, value] pairs. */
interface LokiSeries {
  metric: Record<string, string>;
  values?: [number, string][];
  value?: [number, string];
}

export interface QueryData {
  resultType?: string;
  result?: unknown[];
}

/** The longest log line shown whole; a longer one is cut with a mark. */
export const MAX_LINE_CHARS = 1_000;

/** `{a="1", b="2"}`, labels sorted, as LogQL writes a selector. */
export function labelSet(labels: Record<string, string>): string {
  const pairs = Object.keys(labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(labels[k])}`);
  return `{${pairs.join(', ')}}`;
}

/**
 * Log streams as compact text: each stream's labels once, then `time line` rows newest first; the
 * stream with the newest line first; at most `limit` rows in all, each line cut at MAX_LINE_CHARS.
 */
export function formatStreams(streams: LokiStream[], limit: number): { text: string; rows: number } {
  const sorted = streams
    .map((s) => ({ labels: s.stream, values: [...s.values].sort((a, b) => compareNs(b[0], a[0])) }))
    .filter((s) => s.values.length > 0)
    .sort((a, b) => compareNs(b.values[0]![0], a.values[0]![0]));
  const out: string[] = [];
  let rows = 0;
  for (const s of sorted) {
    if (rows >= limit) break;
    out.push(labelSet(s.labels));
    for (const [ns, line] of s.values.slice(0, limit - rows)) {
      out.push(`${nsToIso(ns)} ${clipLine(line)}`);
      rows += 1;
    }
  }
  return { text: out.join('\n'), rows };
}

/** A metric query's series: labels once, then `time value` rows newest first, at most `limit` per series. */
export function formatSeries(series: LokiSeries[], limit: number): string {
  return series
    .map((s) => {
      const points = s.values ?? (s.value ? [s.value] : []);
      const rows = [...points]
        .sort((a, b) => b[0] - a[0])
        .slice(0, limit)
        .map(([t, v]) => `${new Date(t * 1000).toISOString()} ${v}`);
      return [labelSet(s.metric), ...rows].join('\n');
    })
    .join('\n');
}

/** Loki's query answer as text for the model; `empty` when it holds no line or point. */
export function formatQueryData(data: QueryData, limit: number): { text: string; empty: boolean } {
  const result = Array.isArray(data.result) ? data.result : [];
  if (data.resultType === 'streams') {
    const { text, rows } = formatStreams(result as LokiStream[], limit);
    const note = rows >= limit ? `\n[${rows} lines shown, the limit: narrow the query or the window for more]` : '';
    return { text: rows ? `${text}${note}` : '', empty: rows === 0 };
  }
  const text = formatSeries(result as LokiSeries[], limit);
  return { text, empty: result.length === 0 };
}

function clipLine(line: string): string {
  const oneLine = line.replace(/\r?\n$/, '');
  if (oneLine.length <= MAX_LINE_CHARS) return oneLine;
  return `${oneLine.slice(0, MAX_LINE_CHARS)}…[${oneLine.length - MAX_LINE_CHARS} more characters]`;
}

function compareNs(a: string, b: string): number {
  const d = BigInt(a) - BigInt(b);
  if (d === 0n) return 0;
  return d < 0n ? -1 : 1;
}

/** Nanoseconds since the epoch as RFC 3339 with the nanoseconds kept. */
export function nsToIso(ns: string): string {
  const n = BigInt(ns);
  const seconds = n / 1_000_000_000n;
  const frac = (n % 1_000_000_000n).toString().padStart(9, '0');
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}.${frac}Z`;
}
