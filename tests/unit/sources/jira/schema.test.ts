import { describe, expect, it } from 'vitest';
import {
  ChangeItemSchema,
  CommentSchema,
  EntityPropertySchema,
  ISSUE_FIELDS,
  IssueBeanSchema,
  IssueFieldsSchema,
  IssueKeySchema,
  PageOfCommentsSchema,
  UserSchema,
} from '../../../../sources/jira/schema.js';
import { CommentEventSchema, DeliveryHeadSchema, IssueEventSchema } from '../../../../sources/jira/webhook-schema.js';
import { jiraFixture, type JiraFixture } from '../../../fixtures/jira/fixtures.js';

const refusal = (
  schema: { safeParse(v: unknown): { success: boolean; error?: { issues: Array<{ path: PropertyKey[] }> } } },
  value: unknown,
) => {
  const r = schema.safeParse(value);
  return r.success ? null : r.error!.issues[0]!.path.join('.');
};

describe('Jira issues as the APIs answer them', () => {
  it.each(['cloud-api-issue', 'dc-api-issue'] as const)('accept the real %s', (name) => {
    const bean = IssueBeanSchema.parse(jiraFixture(name));
    expect(bean.key).toMatch(/^[A-Z]+-\d+$/);
    expect(typeof bean.id).toBe('string');
  });

  it('read a numeric id as text, and only whole non-negative numbers', () => {
    expect(IssueBeanSchema.parse({ id: 10042, key: 'OPS-7' }).id).toBe('10042');
    expect(IssueBeanSchema.parse({ id: '10042', key: 'OPS-7' })).toEqual({ id: '10042', key: 'OPS-7', fields: {} });
    for (const id of ['', '10042a', 'a10042', -1, 1.5])
      expect(refusal(IssueBeanSchema, { id, key: 'OPS-7' }), String(id)).toBe('id');
  });

  it('need a whole issue key such as OPS-7', () => {
    for (const key of ['OPS_2-7', 'ops-7', 'A1-0']) expect(IssueKeySchema.safeParse(key).success, key).toBe(true);
    for (const key of ['OPS-', '7-OPS', '1OPS-7', 'OPS-7x', 'xOPS 7', 'OPS-7/..', ''])
      expect(refusal(IssueBeanSchema, { id: '1', key }), key).toBe('key');
  });

  it('take null for the fields search can leave out, and name a field of the wrong type', () => {
    const nulls = Object.fromEntries(ISSUE_FIELDS.filter((f) => f !== 'description').map((f) => [f, null]));
    expect(IssueFieldsSchema.safeParse(nulls).success).toBe(true);
    for (const [field, value] of [
      ['summary', 5],
      ['labels', 'prod'],
      ['priority', { id: '2' }],
      ['components', [{}]],
      ['status', { statusCategory: { key: 'done' } }],
      ['project', { name: 'Ops' }],
      ['resolution', 'Done'],
      ['created', 1],
      ['reporter', { accountId: 5 }],
      ['comment', { comments: [{ body: 'x' }] }],
    ] as const) {
      expect(refusal(IssueBeanSchema, { id: '1', key: 'OPS-1', fields: { [field]: value } }), field).toMatch(
        new RegExp(`^fields\\.${field}`),
      );
    }
  });

  it('ask for every field the mapping reads', () => {
    expect(ISSUE_FIELDS).toEqual(Object.keys(IssueFieldsSchema.shape));
  });
});

describe('Jira users, comments and pages', () => {
  it('name users by accountId (Cloud) or name and key (Data Center)', () => {
    expect(UserSchema.parse({ accountId: 'a', displayName: 'Alice', timeZone: 'UTC', active: true })).toEqual({
      accountId: 'a',
      displayName: 'Alice',
      timeZone: 'UTC',
    });
    expect(UserSchema.parse({ name: 'alice', key: 'JIRAUSER1' })).toEqual({ name: 'alice', key: 'JIRAUSER1' });
    for (const field of ['accountId', 'name', 'key', 'displayName', 'timeZone'])
      expect(refusal(UserSchema, { [field]: 1 }), field).toBe(field);
  });

  it('read comments with any body, and pages of them', () => {
    expect(
      CommentSchema.parse({ id: 10100, body: { type: 'doc', content: [] }, created: '2025-03-04T09:12:44.123+0000' })
        .id,
    ).toBe('10100');
    const page = PageOfCommentsSchema.parse({
      comments: [{ id: '1', body: 'x' }],
      startAt: 0,
      maxResults: 50,
      total: 1,
    });
    expect([page.comments.length, page.startAt, page.maxResults, page.total]).toEqual([1, 0, 50, 1]);
    expect(refusal(PageOfCommentsSchema, { comments: [], total: 1.5 })).toBe('total');
    expect(refusal(PageOfCommentsSchema, { comments: [], startAt: '0' })).toBe('startAt');
    expect(refusal(PageOfCommentsSchema, { comments: [{ id: 'x' }] })).toBe('comments.0.id');
    expect(refusal(CommentSchema, { id: '1', body: 'x', created: 5 })).toBe('created');
  });

  it('read changelog items and entity properties', () => {
    expect(
      ChangeItemSchema.parse({
        field: 'labels',
        fieldtype: 'jira',
        fieldId: 'labels',
        from: null,
        fromString: '',
        to: null,
        toString: 'lestrade',
      }),
    ).toMatchObject({ field: 'labels', toString: 'lestrade' });
    expect(refusal(ChangeItemSchema, { fieldId: 'labels' })).toBe('field');
    expect(refusal(ChangeItemSchema, { field: 'labels', toString: 1 })).toBe('toString');
    expect(EntityPropertySchema.parse({ key: 'lestrade', value: { sha: 'x' } })).toEqual({
      key: 'lestrade',
      value: { sha: 'x' },
    });
    expect(refusal(EntityPropertySchema, { key: 1, value: 1 })).toBe('key');
  });
});

describe('Jira webhook deliveries, on real payloads', () => {
  it.each([
    'cloud-issue-created',
    'cloud-issue-updated-label-added',
    'cloud-issue-updated-summary',
    'cloud-issue-updated-resolved',
    'dc-issue-created',
  ] as JiraFixture[])('read the issue event %s', (name) => {
    const e = IssueEventSchema.parse(jiraFixture(name));
    expect(e.issue.key).toMatch(/-\d+$/);
    expect(DeliveryHeadSchema.parse(jiraFixture(name)).webhookEvent).toBe(e.webhookEvent);
  });

  it.each([
    'cloud-comment-created-command',
    'cloud-comment-created-command-adf',
    'cloud-comment-created-other',
    'dc-comment-created-command',
  ] as JiraFixture[])('read the comment event %s, the issue id as text', (name) => {
    const e = CommentEventSchema.parse(jiraFixture(name));
    expect(typeof e.issue.id).toBe('string');
    expect(e.comment.id).toMatch(/^\d+$/);
  });

  it('read the changelog of an update', () => {
    const e = IssueEventSchema.parse(jiraFixture('cloud-issue-updated-label-added'));
    expect(e.changelog?.items.some((i) => i.field === 'labels')).toBe(true);
    expect(
      refusal(IssueEventSchema, { ...jiraFixture('cloud-issue-updated-label-added'), changelog: { items: [{}] } }),
    ).toBe('changelog.items.0.field');
  });

  it('name what a delivery gets wrong', () => {
    expect(refusal(DeliveryHeadSchema, { webhookEvent: '' })).toBe('webhookEvent');
    expect(
      refusal(IssueEventSchema, { ...jiraFixture('cloud-issue-created'), webhookEvent: 'jira:issue_deleted' }),
    ).toBe('webhookEvent');
    expect(refusal(IssueEventSchema, { ...jiraFixture('cloud-issue-created'), timestamp: 'now' })).toBe('timestamp');
    expect(
      refusal(CommentEventSchema, { ...jiraFixture('cloud-comment-created-command'), webhookEvent: 'comment_updated' }),
    ).toBe('webhookEvent');
    expect(refusal(CommentEventSchema, { ...jiraFixture('cloud-comment-created-command'), timestamp: 'now' })).toBe(
      'timestamp',
    );
    const comment = jiraFixture('cloud-comment-created-command');
    expect(refusal(CommentEventSchema, { ...comment, issue: { ...comment.issue, key: 'nope' } })).toBe('issue.key');
    expect(CommentEventSchema.parse({ ...comment, issue: { ...comment.issue, id: 10001 } }).issue.id).toBe('10001');
    expect(refusal(CommentEventSchema, { ...comment, issue: { ...comment.issue, id: true } })).toBe('issue.id');
  });
});
