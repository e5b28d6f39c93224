import { describe, expect, it } from 'vitest';
import { IssueCommentEventSchema, IssuesEventSchema, WebhookIssueSchema } from '../../../../sources/github/schema.js';
import { commentCreated, issuesLabeled } from '../../../fixtures/github/payloads.js';

type Json = Record<string, any>;
const refusal = (
  schema: { safeParse(v: unknown): { success: boolean; error?: { issues: Array<{ path: PropertyKey[] }> } } },
  value: unknown,
) => {
  const r = schema.safeParse(value);
  return r.success ? null : r.error!.issues[0]!.path.join('.');
};
/** The labelled-issue example with one key of its issue changed (undefined: removed). */
function withIssue(key: string, value: unknown): Json {
  const p = issuesLabeled();
  if (value === undefined) delete p.issue[key];
  else p.issue[key] = value;
  return p;
}

describe('GitHub issues events, on @octokit/webhooks-examples', () => {
  it('keep the label just added and the sender', () => {
    const e = IssuesEventSchema.parse(issuesLabeled({ sender: 'alice', label: 'lestrade' }));
    expect(e).toMatchObject({
      action: 'labeled',
      label: { name: 'lestrade' },
      sender: { login: 'alice' },
      repository: { full_name: 'Codertocat/Hello-World', private: true },
    });
  });

  it('default labels to none and comments to 0 when absent, and take a missing state', () => {
    const { labels: _l, comments: _c, state: _s, ...issue } = issuesLabeled().issue as Json;
    expect(WebhookIssueSchema.parse(issue)).toMatchObject({ labels: [], comments: 0 });
    expect(WebhookIssueSchema.parse(issue).state).toBeUndefined();
  });

  it('take a ghost author (user null), and a body of null', () => {
    expect(IssuesEventSchema.safeParse(withIssue('user', null)).success).toBe(true);
    expect(IssuesEventSchema.safeParse(withIssue('body', null)).success).toBe(true);
  });

  it.each([
    ['number', 1.5],
    ['number', '1'],
    ['title', undefined],
    ['html_url', undefined],
    ['created_at', undefined],
    ['updated_at', undefined],
    ['repository_url', undefined],
    ['labels', [{ id: 1 }]],
    ['comments', 0.5],
    ['user', { id: 1 }],
    ['state', 1],
    ['author_association', 1],
  ] as const)('refuse an issue with %s as %j, naming it', (key, value) => {
    expect(refusal(IssuesEventSchema, withIssue(key, value))).toMatch(new RegExp(`^issue\\.${key}`));
  });

  it('need a repository named owner/name, and say whether it is private', () => {
    const p = issuesLabeled();
    for (const full of ['Hello-World', 'a/b/c', '/b', 'a/']) {
      expect(refusal(IssuesEventSchema, { ...p, repository: { ...p.repository, full_name: full } }), full).toBe(
        'repository.full_name',
      );
    }
    expect(
      IssuesEventSchema.safeParse({ ...p, repository: { ...p.repository, full_name: 'x' } }).error?.issues[0]?.message,
    ).toBe('expected owner/name');
    expect(refusal(IssuesEventSchema, { ...p, repository: { ...p.repository, private: 'no' } })).toBe(
      'repository.private',
    );
    expect(refusal(IssuesEventSchema, { ...p, sender: {} })).toBe('sender.login');
    expect(refusal(IssuesEventSchema, { ...p, label: { id: 1 } })).toBe('label.name');
    expect(refusal(IssuesEventSchema, { ...p, action: undefined })).toBe('action');
  });
});

describe('GitHub issue_comment events', () => {
  it("keep the comment's id, author and association", () => {
    const e = IssueCommentEventSchema.parse(
      commentCreated({ id: 777, login: 'bob', association: 'MEMBER', body: '/lestrade investigate' }),
    );
    expect(e.comment).toMatchObject({
      id: 777,
      body: '/lestrade investigate',
      user: { login: 'bob' },
      author_association: 'MEMBER',
    });
  });

  it.each([
    ['id', 1.5],
    ['body', null],
    ['author_association', undefined],
    ['created_at', undefined],
    ['html_url', undefined],
    ['user', { name: 'x' }],
  ] as const)('refuse a comment with %s as %j, naming it', (key, value) => {
    const p = commentCreated();
    if (value === undefined) delete p.comment[key];
    else p.comment[key] = value;
    expect(refusal(IssueCommentEventSchema, p)).toMatch(new RegExp(`^comment\\.${key}`));
  });

  it('take a comment by a ghost', () => {
    const p = commentCreated();
    p.comment.user = null;
    expect(IssueCommentEventSchema.safeParse(p).success).toBe(true);
    expect(refusal(IssueCommentEventSchema, { ...p, repository: { ...p.repository, full_name: 'x' } })).toBe(
      'repository.full_name',
    );
  });
});
