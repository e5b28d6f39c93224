import { describe, expect, it } from 'vitest';
import { JiraTriggersSchema, type JiraTriggers } from '../../../../sources/jira/config.js';
import { isOwnComment } from '../../../../sources/jira/own-comments.js';
import { decideCommentEvent, decideIssueEvent, startsWithCommand } from '../../../../sources/jira/triggers.js';
import { CommentEventSchema, IssueEventSchema } from '../../../../sources/jira/webhook-schema.js';
import { BOT_ACCOUNT_ID, DC_BOT, jiraFixture, type Json } from '../../../fixtures/jira/fixtures.js';

const triggers = (t: Partial<JiraTriggers> = {}) => JiraTriggersSchema.parse({ projects: ['OPS'], ...t });
const issueEvent = (doc: Json) => IssueEventSchema.parse(doc);
const commentEvent = (doc: Json) => CommentEventSchema.parse(doc);

describe('issue events', () => {
  it('an issue created in a watched project is a trigger', () => {
    expect(decideIssueEvent(issueEvent(jiraFixture('cloud-issue-created')), triggers())).toMatchObject({
      kind: 'created',
      checkJql: false,
    });
  });

  it('an issue created elsewhere is ignored, naming the setting', () => {
    const d = decideIssueEvent(issueEvent(jiraFixture('cloud-issue-created')), triggers({ projects: ['SEC'] }));
    expect(d).toEqual({ kind: 'ignored', reason: 'OPS-7: project OPS is not in sources.jira.triggers.projects' });
  });

  // Issue 16, defect 5: the label used to work in any project. Failed before the fix.
  it('...even when created with the trigger label; in a configured project the label is a trigger by its creator', () => {
    const doc = jiraFixture('cloud-issue-created');
    doc.issue.fields.labels.push('lestrade');
    expect(decideIssueEvent(issueEvent(doc), triggers({ projects: ['SEC'] })).kind).toBe('ignored');
    expect(decideIssueEvent(issueEvent(doc), triggers({ onCreate: false })).kind).toBe('label');
    expect(decideIssueEvent(issueEvent(doc), triggers({ issueTypes: ['Bug'] })).kind).toBe('label');
  });

  it('issue type and label filters narrow created issues', () => {
    const ev = issueEvent(jiraFixture('cloud-issue-created'));
    expect(decideIssueEvent(ev, triggers({ issueTypes: ['incident'] })).kind).toBe('created');
    expect(decideIssueEvent(ev, triggers({ issueTypes: ['Bug'] })).kind).toBe('ignored');
    expect(decideIssueEvent(ev, triggers({ labels: ['prod', 'p1'] })).kind).toBe('created');
    expect(decideIssueEvent(ev, triggers({ labels: ['p1'] })).kind).toBe('ignored');
  });

  it('asks for the JQL check only when triggers.jql is set', () => {
    const d = decideIssueEvent(issueEvent(jiraFixture('cloud-issue-created')), triggers({ jql: 'priority = High' }));
    expect(d).toMatchObject({ kind: 'created', checkJql: true });
  });

  it("adding the trigger label through the changelog is a trigger, by the event's user, in configured projects only", () => {
    const ev = issueEvent(jiraFixture('cloud-issue-updated-label-added'));
    expect(decideIssueEvent(ev, triggers()).kind).toBe('label');
    expect(decideIssueEvent(ev, triggers())).toMatchObject({ by: { displayName: 'Alice Oncall' } });
    expect(decideIssueEvent(ev, triggers({ projects: [] })).kind).toBe('ignored');
  });

  it('a labels change that keeps the label, removes it, or adds another starts nothing', () => {
    const cases: Array<[string, string]> = [
      ['lestrade prod', 'lestrade prod x'],
      ['lestrade', ''],
      ['prod', 'prod lestrade-old'],
    ];
    for (const [from, to] of cases) {
      const doc = jiraFixture('cloud-issue-updated-label-added');
      Object.assign(doc.changelog.items[0], { fromString: from, toString: to });
      expect(decideIssueEvent(issueEvent(doc), triggers()).kind, `${from} → ${to}`).toBe('ignored');
    }
  });

  it('a custom trigger label is honoured', () => {
    const doc = jiraFixture('cloud-issue-updated-label-added');
    Object.assign(doc.changelog.items[0], { fromString: 'prod', toString: 'prod rca-please' });
    expect(decideIssueEvent(issueEvent(doc), triggers({ triggerLabel: 'rca-please' })).kind).toBe('label');
    expect(decideIssueEvent(issueEvent(doc), triggers()).kind).toBe('ignored');
  });

  it('an edit of another field is ignored with the reason', () => {
    expect(decideIssueEvent(issueEvent(jiraFixture('cloud-issue-updated-summary')), triggers())).toEqual({
      kind: 'ignored',
      reason: 'OPS-7 updated without adding the label "lestrade" or resolving it',
    });
  });

  it('resolving the issue (resolution set, status Done) is a resolution', () => {
    expect(decideIssueEvent(issueEvent(jiraFixture('cloud-issue-updated-resolved')), triggers()).kind).toBe('resolved');
  });

  it('a status change into the Done category without a resolution is a resolution too; into In Progress it is not', () => {
    const doc = jiraFixture('cloud-issue-updated-resolved');
    doc.changelog.items.shift();
    doc.issue.fields.resolution = null;
    expect(decideIssueEvent(issueEvent(doc), triggers()).kind).toBe('resolved');
    doc.issue.fields.status.statusCategory.key = 'indeterminate';
    expect(decideIssueEvent(issueEvent(doc), triggers()).kind).toBe('ignored');
  });
});

describe('comment events', () => {
  it('a comment starting with the command is a re-investigation (string and ADF bodies)', () => {
    for (const name of [
      'cloud-comment-created-command',
      'cloud-comment-created-command-adf',
      'dc-comment-created-command',
    ] as const) {
      const d = decideCommentEvent(commentEvent(jiraFixture(name)), triggers());
      expect(d, name).toMatchObject({ kind: 'command', issueKey: 'OPS-7' });
    }
  });

  it('a comment that only mentions the command starts nothing', () => {
    const d = decideCommentEvent(commentEvent(jiraFixture('cloud-comment-created-other')), triggers());
    expect(d).toEqual({ kind: 'ignored', reason: 'comment 10212 on OPS-7 is not the command "/lestrade investigate"' });
  });

  it('our own comment (marker in the body) starts nothing, even if it began with the command', () => {
    const doc = jiraFixture('cloud-comment-created-own');
    expect(decideCommentEvent(commentEvent(doc), triggers())).toMatchObject({
      kind: 'ignored',
      reason: expect.stringContaining('our own'),
    });
    doc.comment.body = `/lestrade investigate\n${doc.comment.body}`;
    expect(decideCommentEvent(commentEvent(doc), triggers()).kind).toBe('ignored');
  });

  it('approval lines are decisions, in configured projects only; code blocks never count', () => {
    const doc = jiraFixture('cloud-comment-created-command');
    doc.comment.body = 'Fine by me.\n/lestrade approve call_1';
    expect(decideCommentEvent(commentEvent(doc), triggers())).toMatchObject({
      kind: 'approvals',
      issueKey: 'OPS-7',
      commentId: '10210',
      commands: [{ toolCallId: 'call_1', approved: true }],
    });
    expect(decideCommentEvent(commentEvent(doc), triggers({ projects: ['SEC'] }))).toMatchObject({
      kind: 'ignored',
      reason: expect.stringContaining('not in sources.jira.triggers.projects'),
    });
    doc.comment.body = {
      type: 'doc',
      version: 1,
      content: [{ type: 'codeBlock', content: [{ type: 'text', text: '/lestrade approve call_1' }] }],
    };
    expect(decideCommentEvent(commentEvent(doc), triggers()).kind).toBe('ignored');
  });

  it('the command matches case-insensitively and only as a whole word', () => {
    expect(startsWithCommand('/Lestrade Investigate now', '/lestrade investigate')).toBe(true);
    expect(startsWithCommand('/lestrade investigate', '/lestrade investigate')).toBe(true);
    expect(startsWithCommand('/lestrade investigated it', '/lestrade investigate')).toBe(false);
    expect(startsWithCommand('/lestrade', '/lestrade investigate')).toBe(false);
  });
});

describe('echo suppression: our own comments', () => {
  const cloudMe = { accountId: BOT_ACCOUNT_ID };
  it('by our accountId on Cloud, whatever the text', () => {
    expect(isOwnComment({ accountId: BOT_ACCOUNT_ID }, 'anything', cloudMe)).toBe(true);
    expect(isOwnComment({ accountId: '712020:other' }, 'anything', cloudMe)).toBe(false);
  });

  it('by our name or key on Data Center', () => {
    expect(isOwnComment({ name: 'lestrade', key: 'JIRAUSER1' }, 'x', DC_BOT)).toBe(true);
    expect(isOwnComment({ name: 'renamed', key: DC_BOT.key }, 'x', DC_BOT)).toBe(true);
    expect(isOwnComment({ name: 'alice', key: 'JIRAUSER10100' }, 'x', DC_BOT)).toBe(false);
  });

  it('by our marker from anyone, and not by an account that merely lacks ids', () => {
    expect(isOwnComment({ accountId: '712020:other' }, 'see `lestrade:rca:OPS-7`', cloudMe)).toBe(true);
    expect(isOwnComment({}, 'hello', cloudMe)).toBe(false);
    expect(isOwnComment({ accountId: BOT_ACCOUNT_ID }, 'hello', null)).toBe(false);
  });
});
