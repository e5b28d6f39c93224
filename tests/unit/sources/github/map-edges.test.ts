import { describe, expect, it } from 'vitest';
import {
  isPullRequest,
  labelNames,
  locatorFor,
  MAX_COMMENT_CHARS,
  severityFromLabels,
  toIssue,
  type GhComment,
  type MapContext,
} from '../../../../sources/github/map.js';
import { IssueCommentEventSchema, IssuesEventSchema } from '../../../../sources/github/schema.js';
import { commentCreated, issuesLabeled } from '../../../fixtures/github/payloads.js';

const ctx: Omit<MapContext, 'trigger'> = {
  repo: 'Codertocat/Hello-World',
  instance: 'api.github.com',
  comments: [],
  botLogin: 'lestrade-bot',
};
const labeled = () => IssuesEventSchema.parse(issuesLabeled()).issue;
const command = (over: Partial<GhComment> = {}) => ({
  ...IssueCommentEventSchema.parse(commentCreated({ id: 777, login: 'bob' })).comment,
  ...over,
});

describe('GitHub issues by deleted users (ghosts) and with missing fields', () => {
  it('names a ghost author, no association, an empty description', () => {
    const issue = toIssue(
      { ...labeled(), user: null, author_association: undefined, body: null },
      { ...ctx, trigger: { kind: 'label' } },
    );
    expect(issue.annotations).toMatchObject({ author: 'ghost', author_association: 'NONE' });
    expect(issue.description).toBe('');
    expect(issue.raw).toMatchObject({ user: null });
  });

  it("labels a ghost's comment as by @ghost, and its command request as by ghost", () => {
    const ghost = command({ user: null });
    const issue = toIssue(labeled(), { ...ctx, trigger: { kind: 'comment', comment: ghost } });
    expect(issue.untrusted).toEqual([
      { label: `comment by @ghost at ${ghost.created_at}`, text: '/lestrade investigate' },
    ]);
    expect(issue.annotations).toMatchObject({ requested_by: 'ghost', request_url: ghost.html_url });
    expect(issue.raw).toMatchObject({
      comment: { id: 777, user: null, created_at: ghost.created_at, html_url: ghost.html_url },
    });
  });
});

describe('a command comment', () => {
  it('says who asked and where, in the annotations and raw', () => {
    const c = command();
    const issue = toIssue(labeled(), { ...ctx, trigger: { kind: 'comment', comment: c } });
    expect(issue.annotations).toMatchObject({ requested_by: 'bob', request_url: c.html_url });
    expect(issue.raw).toMatchObject({
      comment: { id: 777, user: 'bob', created_at: c.created_at, html_url: c.html_url },
    });
  });

  it('is listed once when the recent comments already hold it, after the others', () => {
    const c = command();
    const earlier: GhComment = {
      id: 1,
      body: 'seen it too',
      user: { login: 'alice' },
      created_at: '2019-05-15T15:19:00Z',
      html_url: 'u',
    };
    const issue = toIssue(labeled(), { ...ctx, comments: [earlier, c], trigger: { kind: 'comment', comment: c } });
    expect(issue.untrusted?.map((u) => u.text)).toEqual(['seen it too', '/lestrade investigate']);
  });

  it('is added after the recent comments when they do not hold it', () => {
    const earlier: GhComment = {
      id: 1,
      body: 'seen it too',
      user: { login: 'alice' },
      created_at: '2019-05-15T15:19:00Z',
      html_url: 'u',
    };
    const issue = toIssue(labeled(), { ...ctx, comments: [earlier], trigger: { kind: 'comment', comment: command() } });
    expect(issue.untrusted?.map((u) => u.text)).toEqual(['seen it too', '/lestrade investigate']);
  });

  it('a label trigger adds no request annotations and no comment in raw', () => {
    const issue = toIssue(labeled(), { ...ctx, trigger: { kind: 'label' } });
    expect(issue.annotations).not.toHaveProperty('requested_by');
    expect(issue.raw).not.toHaveProperty('comment');
  });
});

describe('comment size', () => {
  it('keeps a comment of exactly the limit whole', () => {
    const whole = 'y'.repeat(MAX_COMMENT_CHARS);
    const c: GhComment = {
      id: 5,
      body: whole,
      user: { login: 'alice' },
      created_at: '2024-05-01T10:00:00Z',
      html_url: 'u',
    };
    expect(toIssue(labeled(), { ...ctx, comments: [c], trigger: { kind: 'label' } }).untrusted?.[0]?.text).toBe(whole);
  });
});

describe('labels', () => {
  it('reads string labels and named ones, leaving out those without a name', () => {
    expect(labelNames({ labels: ['bug', { name: null }, { name: 'P1' }, { name: '' }, {}] })).toEqual(['bug', 'P1']);
    const issue = toIssue(
      { ...labeled(), labels: [{ name: 'bug' }, { name: null }] },
      { ...ctx, trigger: { kind: 'label' } },
    );
    expect(issue.labels).toEqual({ bug: 'true', repository: 'Codertocat/Hello-World' });
    expect(issue.annotations.labels).toBe('bug');
  });

  it('read a severity only from a whole label, spaces around it ignored', () => {
    expect(severityFromLabels([' sev1 '])).toBe('critical');
    expect(severityFromLabels([' 3 '])).toBe('warning');
    expect(severityFromLabels(['no-severity:critical'])).toBe('unknown');
    expect(severityFromLabels(['sev1\nnotes'])).toBe('unknown');
  });
});

describe('pull requests and locators', () => {
  it('a pull_request of null is no pull request', () => {
    expect(isPullRequest({ pull_request: null })).toBe(false);
    expect(isPullRequest({ pull_request: undefined })).toBe(false);
    expect(isPullRequest({ pull_request: {} })).toBe(true);
  });

  it('a repository without a name gives an empty repository in the locator', () => {
    expect(locatorFor('octo', 3)).toEqual({ key: 'octo#3', ref: { owner: 'octo', repo: '', number: 3 } });
  });
});
