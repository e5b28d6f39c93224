/**
 * The identity of one firing of a Prometheus alert, shared by every source that carries
 * Alertmanager's alerts (its webhook, its API, its PagerDuty integration), so one problem is
 * recognised whichever way it arrives.
 */

/**
 * Alertmanager's timestamps carry up to nanoseconds in webhooks and milliseconds in API v2.
 * Both become one millisecond ISO string, so an alert has the same identity either way.
 */
export function normaliseTime(rfc3339: string): string {
  const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/i.exec(rfc3339);
  if (!m) return rfc3339;
  const ms = (m[2] ?? '').padEnd(3, '0').slice(0, 3);
  const t = Date.parse(`${m[1]}.${ms}${m[3]}`);
  return Number.isNaN(t) ? rfc3339 : new Date(t).toISOString();
}

/** One firing of one alert: the same fingerprint firing again later has a new startsAt. */
export function alertIdentity(fingerprint: string, startsAt: string): string {
  return `${fingerprint}@${normaliseTime(startsAt)}`;
}
