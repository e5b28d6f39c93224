import { describe, expect, it } from 'vitest';
import { isResolved, issueFromBean, severityOf } from '../../../../sources/jira/map-issue.js';
import { jiraTimeToIso, jqlMinute } from '../../../../sources/jira/jira-time.js';
import { IssueBeanSchema, type IssueBean } from '../../../../sources/jira/schema.js';
import { textOf } from '../../../../sources/jira/text-of.js';
import { jiraFixture } from '../../../fixtures/jira/fixtures.js';

const CLOUD = 'https://acme.atlassian.net';
const bare = (fields: Record<string, unknown> = {}): IssueBean =>
  IssueBeanSchema.parse({ id: '10001', key: 'OPS-1', fields });
const comment = (body: unknown, over: Record<string, unknown> = {}) => ({
  id: '1',
  body,
  author: { displayName: 'Alice' },
  created: '2025-03-04T09:12:44.123+0000',
  ...over,
});

describe('a Jira issue with little in it', () => {
  it('has an empty title, no labels but the fixed ones, and no undefined annotations', () => {
    const issue = issueFromBean(bare({ summary: null, labels: null, project: { key: 'OPS' } }), {
      site: CLOUD,
      now: () => new Date('2025-03-04T10:00:00Z'),
    });
    expect(issue.title).toBe('');
    expect(issue.labels).toEqual({ project: 'OPS' });
    expect(issue.annotations).toStrictEqual({});
    expect(issue.startedAt).toBe('2025-03-04T10:00:00.000Z');
  });

  it('keeps raw to what debugging needs, resolution null when unset', () => {
    expect(issueFromBean(bare({ summary: 'S', priority: { name: 'High' } }), { site: CLOUD }).raw).toEqual({
      id: '10001',
      key: 'OPS-1',
      fields: {
        summary: 'S',
        labels: undefined,
        priority: 'High',
        status: undefined,
        issuetype: undefined,
        project: undefined,
        resolution: null,
        created: undefined,
        updated: undefined,
      },
    });
    expect(
      (
        issueFromBean(bare({ resolution: { name: 'Fixed' } }), { site: CLOUD }).raw as {
          fields: { resolution: unknown };
        }
      ).fields.resolution,
    ).toBe('Fixed');
  });
});

describe('comments as untrusted text', () => {
  const untrusted = (comments: unknown[]) => issueFromBean(bare({ comment: { comments } }), { site: CLOUD }).untrusted;

  it('leave out blank comments', () => {
    expect(untrusted([comment('  \n '), comment('real')])?.map((u) => u.text)).toEqual(['real']);
    expect(untrusted([comment(null)])).toBeUndefined();
  });

  it('name an unknown author and time when Jira gives none, and a time it cannot read as written', () => {
    expect(untrusted([comment('x', { author: undefined, created: undefined })])?.[0]?.label).toBe(
      'comment by unknown at unknown time',
    );
    expect(untrusted([comment('x', { author: { name: 'alice' }, created: 'yesterday' })])?.[0]?.label).toBe(
      'comment by alice at yesterday',
    );
  });

  it('keep a comment of exactly 2,000 characters whole, and cut a longer one', () => {
    expect(untrusted([comment('z'.repeat(2_000))])?.[0]?.text).toBe('z'.repeat(2_000));
    expect(untrusted([comment('z'.repeat(2_001))])?.[0]?.text).toBe(`${'z'.repeat(2_000)}…`);
  });
});

describe('resolved or not', () => {
  it('is resolved with a resolution, or a status in the Done category', () => {
    expect(isResolved(IssueBeanSchema.parse(jiraFixture('cloud-api-issue')))).toBe(false);
    expect(isResolved(bare({ resolution: { name: 'Done' } }))).toBe(true);
    expect(isResolved(bare({ status: { name: 'Closed', statusCategory: { key: 'done' } } }))).toBe(true);
    expect(
      isResolved(bare({ status: { name: 'In Progress', statusCategory: { key: 'indeterminate' } }, resolution: null })),
    ).toBe(false);
    expect(isResolved(bare({ status: { name: 'Open', statusCategory: null } }))).toBe(false);
  });
});

describe('severity, text and times', () => {
  it('reads the older priority names and ignores spaces and case', () => {
    expect(severityOf('Critical')).toBe('critical');
    expect(severityOf('Minor')).toBe('warning');
    expect(severityOf(' High ')).toBe('high');
  });

  it('a rich-text field that is null or absent is empty text', () => {
    expect([textOf(null), textOf(undefined), textOf('wiki *bold*')]).toEqual(['', '', 'wiki *bold*']);
  });

  it('reads the offset at the end of the time, even after an extended year', () => {
    expect(jiraTimeToIso('+002025-03-04T10:45:00.000+0100')).toBe('2025-03-04T09:45:00.000Z');
  });

  it('refuses to write an invalid date as JQL', () => {
    expect(() => jqlMinute(new Date(Number.NaN))).toThrow(new RangeError('jqlMinute: invalid date'));
  });
});
