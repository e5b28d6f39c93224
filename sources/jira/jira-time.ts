/**
 * Jira writes times as "2024-05-01T10:15:30.123+0000" (no colon in the offset). Returns the
 * instant as a millisecond ISO string in UTC, or null when the text is not a time.
 */
export function jiraTimeToIso(text: string | null | undefined): string | null {
  if (!text) return null;
  const withColon = text.replace(/([+-]\d\d)(\d\d)$/, '$1:$2');
  const t = Date.parse(withColon);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/**
 * A JQL date literal ("yyyy-MM-dd HH:mm") for an instant, in the time zone Jira reads it in: the
 * searching user's profile zone. Unknown zones fall back to UTC.
 */
export function jqlMinute(at: Date, timeZone = 'UTC'): string {
  if (Number.isNaN(at.getTime())) throw new RangeError('jqlMinute: invalid date');
  const format = (zone: string) =>
    new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).formatToParts(at);
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = format(timeZone);
  } catch {
    parts = format('UTC');
  }
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '00';
  return `${get('year')}-${get('month')}-${get('day')} ${get('hour')}:${get('minute')}`;
}
