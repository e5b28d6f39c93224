import { describe, expect, it } from 'vitest';
import { GitHubConfigSchema, type GitHubConfig } from '../../../../sources/github/config.js';
import { IssueCommentEventSchema, IssuesEventSchema } from '../../../../sources/github/schema.js';
import { canWrite, decideCommentEvent, decideIssuesEvent, isCommand } from '../../../../sources/github/trigger.js';
import {
  commentCreated,
  issuesClosed,
  issuesLabeled,
  issuesOpened,
  pullRequestRef,
} from '../../../fixtures/github/payloads.js';

const config = (over: Record<string, unknown> = {}): GitHubConfig => GitHubConfigSchema.parse({ token: 't', ...over });
const issues = (payload: unknown, c = config()) => decideIssuesEvent(IssuesEventSchema.parse(payload), c);
const comments = (payload: unknown, c = config()) => decideCommentEvent(IssueCommentEventSchema.parse(payload), c);

describe('issues events', () => {
  it('the trigger label being added asks for the labeller to be checked', () => {
    expect(issues(issuesLabeled({ sender: 'alice' }))).toEqual({ kind: 'label', labeller: 'alice' });
  });

  it('an issue opened with the trigger label asks for the opener to be checked (templates can apply labels for anyone)', () => {
    expect(issues(issuesOpened({ labels: ['bug', 'Lestrade'], sender: 'carol' }))).toEqual({
      kind: 'label',
      labeller: 'carol',
    });
    expect(issues(issuesOpened({ labels: ['bug'] }))).toMatchObject({
      kind: 'ignore',
      reason: 'opened without the label lestrade',
    });
  });

  it('another label, or another action, starts nothing', () => {
    expect(issues(issuesLabeled({ label: 'bug' }))).toMatchObject({
      kind: 'ignore',
      reason: 'label bug is not lestrade',
    });
    expect(issues({ ...issuesLabeled(), action: 'edited' })).toMatchObject({
      kind: 'ignore',
      reason: 'issues.edited is not a trigger',
    });
  });

  it('a per-repository trigger label replaces the default', () => {
    const c = config({ repos: { 'codertocat/hello-world': { triggerLabel: 'investigate' } } });
    expect(issues(issuesLabeled({ label: 'investigate' }), c).kind).toBe('label');
    expect(issues(issuesLabeled({ label: 'lestrade' }), c).kind).toBe('ignore');
  });

  it('a disabled repository, a public one not allowed, and pull requests are ignored', () => {
    expect(issues(issuesLabeled(), config({ repos: { 'Codertocat/Hello-World': { enabled: false } } }))).toMatchObject({
      kind: 'ignore',
      reason: expect.stringContaining('disabled'),
    });
    expect(issues(issuesLabeled({ private: false }))).toMatchObject({
      kind: 'ignore',
      reason: expect.stringContaining('is public'),
    });
    const pr = issuesLabeled();
    expect(issues({ ...pr, issue: { ...pr.issue, pull_request: pullRequestRef() } })).toMatchObject({
      kind: 'ignore',
      reason: expect.stringContaining('pull request'),
    });
  });

  it('public repositories pass when allowed, by name or all', () => {
    expect(
      issues(issuesLabeled({ private: false }), config({ allowPublicRepos: ['codertocat/Hello-World'] })).kind,
    ).toBe('label');
    expect(issues(issuesLabeled({ private: false }), config({ allowPublicRepos: true })).kind).toBe('label');
    expect(issues(issuesLabeled({ private: false }), config({ allowPublicRepos: ['octo/other'] })).kind).toBe('ignore');
  });

  it('closing an issue resolves it', () => {
    expect(issues(issuesClosed())).toEqual({ kind: 'resolve' });
  });
});

describe('issue_comment events', () => {
  it('the command by a trusted author_association is obeyed', () => {
    for (const association of ['OWNER', 'MEMBER', 'COLLABORATOR']) {
      expect(comments(commentCreated({ association, body: '/lestrade investigate please' }))).toEqual({
        kind: 'command',
      });
    }
  });

  it('the command by anyone else is not', () => {
    for (const association of ['CONTRIBUTOR', 'FIRST_TIME_CONTRIBUTOR', 'NONE']) {
      expect(comments(commentCreated({ association, login: 'mallory' }))).toMatchObject({
        kind: 'ignore',
        reason: `@mallory (${association}) is not trusted to run /lestrade investigate`,
      });
    }
    expect(
      comments(commentCreated({ association: 'CONTRIBUTOR' }), config({ trustedAssociations: ['CONTRIBUTOR'] })).kind,
    ).toBe('command');
  });

  it('our own comment (it carries our marker) is an echo, even when it quotes the command', () => {
    const body = '/lestrade investigate\n\n### Lestrade\n\n<!-- lestrade:rca:Codertocat/Hello-World#1 -->';
    expect(comments(commentCreated({ body }))).toEqual({
      kind: 'ignore',
      reason: 'our own comment (it carries our marker)',
    });
  });

  it('other comments, edits and deletions start nothing', () => {
    expect(comments(commentCreated({ body: 'LGTM' }))).toMatchObject({
      kind: 'ignore',
      reason: 'comment is not a command',
    });
    expect(comments({ ...commentCreated(), action: 'edited' })).toMatchObject({
      kind: 'ignore',
      reason: 'issue_comment.edited is not a trigger',
    });
  });

  it('approval lines are decisions for a trusted author; a comment starting with the command stays a re-investigation', () => {
    expect(comments(commentCreated({ body: 'ok\n/lestrade approve call_1\n/lestrade deny call_2 no' }))).toEqual({
      kind: 'approvals',
      commands: [
        { toolCallId: 'call_1', approved: true },
        { toolCallId: 'call_2', approved: false, feedback: 'no' },
      ],
      refused: [],
    });
    expect(comments(commentCreated({ body: '/lestrade investigate\n/lestrade approve call_1' })).kind).toBe('command');
    expect(comments(commentCreated({ body: '/lestrade approve call_1', association: 'CONTRIBUTOR' }))).toMatchObject({
      kind: 'ignore',
      reason: expect.stringContaining('(CONTRIBUTOR) is not trusted to run /lestrade approve or deny'),
    });
    expect(comments({ ...commentCreated({ body: '/lestrade approve call_1' }), action: 'edited' }).kind).toBe('ignore');
    // A line refused by the parser is still a command: it is logged with why, not taken as "not a command".
    expect(comments(commentCreated({ body: '/lestrade approve all' }))).toMatchObject({
      kind: 'approvals',
      commands: [],
    });
  });

  it('a command on a pull request or a public repository not allowed is ignored', () => {
    const c = commentCreated();
    expect(comments({ ...c, issue: { ...c.issue, pull_request: pullRequestRef() } })).toMatchObject({
      kind: 'ignore',
      reason: expect.stringContaining('pull request'),
    });
    expect(comments(commentCreated({ private: false }))).toMatchObject({
      kind: 'ignore',
      reason: expect.stringContaining('is public'),
    });
  });
});

describe('the command and permissions', () => {
  it('the command must be a whole word at the start', () => {
    expect(isCommand('  /lestrade investigate', '/lestrade investigate')).toBe(true);
    expect(isCommand('/Lestrade Investigate\nwhy is it slow?', '/lestrade investigate')).toBe(true);
    expect(isCommand('/lestrade investigated', '/lestrade investigate')).toBe(false);
    expect(isCommand('please /lestrade investigate', '/lestrade investigate')).toBe(false);
  });

  it('write, maintain and admin may trigger; triage, read, none and strangers may not', () => {
    expect(canWrite({ permission: 'admin', role_name: 'admin' })).toBe(true);
    expect(canWrite({ permission: 'write', role_name: 'maintain' })).toBe(true);
    expect(canWrite({ permission: 'write', role_name: 'write' })).toBe(true);
    expect(canWrite({ permission: 'read', role_name: 'triage' })).toBe(false);
    expect(canWrite({ permission: 'read', role_name: 'read' })).toBe(false);
    expect(canWrite({ permission: 'none', role_name: 'none' })).toBe(false);
    expect(canWrite(null)).toBe(false);
  });
});
