import { describe, expect, it } from 'vitest';
import { jiraTimeToIso, jqlMinute } from '../../../../sources/jira/jira-time.js';
import { withoutOrderBy } from '../../../../sources/jira/poller.js';

describe('Jira times', () => {
  it("reads Jira's offsets without a colon as the instant they name", () => {
    expect(jiraTimeToIso('2025-03-04T10:45:00.000+0100')).toBe('2025-03-04T09:45:00.000Z');
    expect(jiraTimeToIso('2025-03-04T09:12:44.123+0000')).toBe('2025-03-04T09:12:44.123Z');
    expect(jiraTimeToIso('2025-03-04T04:12:44.123-0530')).toBe('2025-03-04T09:42:44.123Z');
    expect(jiraTimeToIso('yesterday')).toBeNull();
    expect(jiraTimeToIso(null)).toBeNull();
  });

  it("writes JQL dates in the user's time zone, to the minute", () => {
    const at = new Date('2025-03-04T23:30:59.999Z');
    expect(jqlMinute(at)).toBe('2025-03-04 23:30');
    expect(jqlMinute(at, 'Europe/Berlin')).toBe('2025-03-05 00:30');
    expect(jqlMinute(at, 'America/Los_Angeles')).toBe('2025-03-04 15:30');
    expect(jqlMinute(new Date('2025-07-01T00:05:00Z'), 'Europe/Berlin')).toBe('2025-07-01 02:05');
    expect(jqlMinute(at, 'Not/AZone')).toBe('2025-03-04 23:30');
    expect(() => jqlMinute(new Date(NaN))).toThrow(RangeError);
  });

  it('a polled query loses its ORDER BY, which cannot stand inside the parentheses', () => {
    expect(withoutOrderBy('project = OPS ORDER BY created DESC')).toBe('project = OPS');
    expect(withoutOrderBy('project = OPS order by key')).toBe('project = OPS');
    expect(withoutOrderBy('summary ~ "order"')).toBe('summary ~ "order"');
    expect(withoutOrderBy('ORDER BY key')).toBe('');
    expect(withoutOrderBy('summary ~ "sort order by size" ORDER BY key')).toBe('summary ~ "sort order by size"');
    expect(withoutOrderBy("text ~ 'it\\'s order by x'")).toBe("text ~ 'it\\'s order by x'");
  });
});
