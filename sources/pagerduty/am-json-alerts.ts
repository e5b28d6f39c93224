import type { AmAlert } from './am-alert.js';

/** Alertmanager fingerprints are 16 hex digits. */
const FINGERPRINT = /^[0-9a-f]{16}$/;

/**
 * Alertmanager ≥ 0.30's PagerDuty details: `firing`/`resolved` are `{{ .Alerts.Firing | toJson }}`,
 * which the notifier then parses as YAML and templates again, string by string
 * (template.DeepCopyWithTemplate). So the JSON arrays arrive as arrays of alerts (status, labels,
 * annotations, startsAt, endsAt, generatorURL, fingerprint), but any label or annotation value
 * that reads as YAML comes back retyped: "500" as 500, "" as null, "Error: disk full" as
 * {Error: "disk full"}. Values are turned back into text; a fingerprint that did not survive as a
 * 16-hex string is left out (no identity is better than a wrong one). Pure.
 */
export function parseJsonAlerts(items: readonly unknown[]): AmAlert[] {
  return items.filter(isObject).map((a) => {
    const fingerprint =
      typeof a.fingerprint === 'string' && FINGERPRINT.test(a.fingerprint) ? a.fingerprint : undefined;
    const startsAt = typeof a.startsAt === 'string' && a.startsAt ? a.startsAt : undefined;
    const source = asText(a.generatorURL);
    return {
      labels: textRecord(a.labels),
      annotations: textRecord(a.annotations),
      ...(source ? { source } : {}),
      ...(startsAt ? { startsAt } : {}),
      ...(fingerprint ? { fingerprint } : {}),
    };
  });
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Own entries only, each value as text; Object.fromEntries keeps a "__proto__" key as data. */
function textRecord(v: unknown): Record<string, string> {
  if (!isObject(v)) return {};
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, asText(x)]));
}

/** A value the YAML re-parse retyped, back as the text it was written as (as near as can be). */
export function asText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return v.map((x) => `- ${asText(x)}`).join('\n');
  if (isObject(v))
    return Object.entries(v)
      .map(([k, x]) => `${k}: ${asText(x)}`)
      .join('\n');
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- YAML yields nothing else (bigint, symbol)
  return String(v);
}
