import type { AmAlert } from './am-alert.js';

/**
 * ` - name = value`: Prometheus label and annotation names are [A-Za-z_][A-Za-z0-9_]*. The value runs
 * to the end of the line, a carriage return included (`s`): a value written with CRLF line breaks.
 */
const PAIR = /^ - ([A-Za-z_][A-Za-z0-9_]*) = (.*)$/s;

interface Building {
  labels: Array<[string, string]>;
  annotations: Array<[string, string]>;
  source?: string;
}

/**
 * Alertmanager ≤ 0.29's PagerDuty details (`firing`, `resolved`): its `__text_alert_list`
 * template, one block per alert:
 *
 *     Labels:
 *      - alertname = HighLatency
 *     Annotations:
 *      - description = first line
 *     second line
 *     Source: http://prometheus/graph?...
 *
 * Values are not escaped, so a line that is none of these continues the value before it (a
 * multi-line description). A continuation line that itself looks like ` - name = value` cannot be
 * told apart; the format has no fingerprint or start time. Pure.
 */
export function parseTextBlocks(text: string): AmAlert[] {
  const out: Building[] = [];
  let section: 'labels' | 'annotations' | null = null;
  let last: [string, string] | null = null;
  for (const line of text.split('\n')) {
    const current = out.at(-1);
    if (line === 'Labels:') {
      out.push({ labels: [], annotations: [] });
      [section, last] = ['labels', null];
    } else if (line === 'Annotations:' && current) {
      [section, last] = ['annotations', null];
    } else if (line.startsWith('Source: ') && current && section) {
      current.source = line.slice('Source: '.length);
      [section, last] = [null, null];
    } else if (current && section && PAIR.test(line)) {
      const m = PAIR.exec(line)!;
      last = [m[1]!, m[2]!];
      current[section].push(last);
    } else if (last) {
      last[1] += `\n${line}`;
    }
  }
  return out.map((b) => ({
    labels: Object.fromEntries(b.labels),
    annotations: Object.fromEntries(b.annotations),
    ...(b.source ? { source: b.source } : {}),
  }));
}
