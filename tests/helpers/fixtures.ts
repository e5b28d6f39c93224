import { readFileSync } from 'node:fs';

const DIR = new URL('../fixtures/alertmanager/', import.meta.url);

export interface Delivery {
  headers: Record<string, string>;
  body: Record<string, unknown> & { alerts: Array<Record<string, unknown>> };
}

/** A real Alertmanager 0.25 delivery, as captured (headers and body). */
export function amFixture(
  name: 'group-firing-truncated' | 'group-repeat-notification' | 'group-mixed-resolved' | 'group-next',
): Delivery {
  return JSON.parse(readFileSync(new URL(`${name}.json`, DIR), 'utf8')) as Delivery;
}

export function amCaptured(name: 'firing' | 'resolved'): Delivery {
  const line = readFileSync(new URL(`captured-0.25.0-${name}.jsonl`, DIR), 'utf8')
    .trim()
    .split('\n')[0]!;
  const rec = JSON.parse(line) as { headers: Record<string, string>; body: Delivery['body'] };
  return {
    headers: Object.fromEntries(Object.entries(rec.headers).map(([k, v]) => [k.toLowerCase(), v])),
    body: rec.body,
  };
}
