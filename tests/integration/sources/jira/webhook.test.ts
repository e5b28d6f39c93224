import { afterEach, describe, expect, it } from 'vitest';
import { InputError, RetryableError } from '../../../../src/errors.js';
import type { DeliveryOutcome, WebhookHandler } from '../../../../src/registration/source.js';
import { cloudApi } from '../../../../sources/jira/cloud-api.js';
import { JiraConfigSchema } from '../../../../sources/jira/config.js';
import { dataCenterApi } from '../../../../sources/jira/datacenter-api.js';
import { jiraWebhook } from '../../../../sources/jira/webhook.js';
import { jiraFixture, type Json } from '../../../fixtures/jira/fixtures.js';
import { jiraDoubleSuite } from '../../../helpers/jira-double-suite.js';

/** The webhook's decisions that need Jira's API: triggers.jql, the command's issue fetch, our own account. */
const alice = {
  accountId: '712020:alice',
  name: 'alice',
  key: 'JIRAUSER10100',
  displayName: 'Alice Oncall',
  emailAddress: 'alice@example.com',
};

describe.each(['cloud', 'datacenter'] as const)('Jira webhook handling against the API (%s)', (deployment) => {
  const d = jiraDoubleSuite(deployment, (jira) => {
    jira.addIssue({ key: 'OPS-7', summary: 'Checkout 502s', priority: 'High', description: 'errors since 09:00' });
  });
  const prefix = deployment === 'cloud' ? 'cloud' : 'dc';
  const handler = (triggers: Json = {}, trusted: Json = { groups: ['sre'] }): WebhookHandler => {
    const config = JiraConfigSchema.parse({
      url: d.jira.url,
      webhookToken: 't',
      triggers: { projects: ['OPS'], ...triggers },
      trusted,
    });
    const api =
      deployment === 'cloud'
        ? cloudApi(d.jira.url, 'lestrade@example.com', 'test-api-token')
        : dataCenterApi(d.jira.url, 'test-pat');
    return jiraWebhook(config, api);
  };
  const handle = (h: WebhookHandler, body: Json) =>
    Promise.resolve(h.handle(body, { headers: {}, rawBody: Buffer.from(JSON.stringify(body)) }));
  const issuesOf = (o: DeliveryOutcome) => (o.kind === 'issues' ? o.issues : []);

  afterEach(() => {
    expect(d.jira.violations).toEqual([]);
    expect(d.jira.responseViolations).toEqual([]);
  });

  /** The command's author in the fixtures: Alice, by accountId on Cloud and by name on Data Center. */
  const aliceId = deployment === 'cloud' ? '712020:4f6e8d0c-9f7e-4c3b-a1d2-3b4c5d6e7f80' : 'alice';
  const command = () => jiraFixture(`${prefix}-comment-created-command`);

  // Issue 16, defect 5: Jira trusted anyone. Commands (and the label) now come only from accounts in
  // configured groups or project roles, checked through Jira's API, in configured projects only.
  // These tests failed before the fix.
  describe('who may start an investigation', () => {
    it('a command by an account in no trusted group or role starts nothing', async () => {
      d.jira.state.setGroups(aliceId, ['jira-users']);
      const out = await handle(handler(), command());
      expect(out).toEqual({
        kind: 'ignored',
        reason: expect.stringMatching(/Alice Oncall is in none of sources\.jira\.trusted/),
      });
      expect(d.jira.requests.some((r) => r.path.includes('/issue/'))).toBe(false);
    });

    it('a command by a member of a trusted group, or an actor of a trusted project role, is accepted', async () => {
      d.jira.state.setGroups(aliceId, ['jira-users', 'sre']);
      expect(issuesOf(await handle(handler(), command()))).toHaveLength(1);
      d.jira.state.setGroups(aliceId, ['jira-users']);
      d.jira.state.setRole('OPS', 'Developers', { users: [aliceId] });
      expect(issuesOf(await handle(handler({}, { projectRoles: ['Developers'] }), command()))).toHaveLength(1);
      d.jira.state.setRole('OPS', 'Developers', { groups: ['jira-users'] });
      expect(issuesOf(await handle(handler({}, { projectRoles: ['Developers'] }), command()))).toHaveLength(1);
      expect(await handle(handler({}, { projectRoles: ['Administrators'] }), command())).toMatchObject({
        kind: 'ignored',
      });
    });

    it('nothing is trusted when no group or role is configured', async () => {
      d.jira.state.setGroups(aliceId, ['sre']);
      expect(await handle(handler({}, {}), command())).toEqual({
        kind: 'ignored',
        reason: expect.stringMatching(/sources\.jira\.trusted\.groups and \.projectRoles are empty/),
      });
    });

    it('a command on an issue of a project not configured starts nothing, and asks Jira nothing', async () => {
      d.jira.state.setGroups(aliceId, ['sre']);
      expect(await handle(handler({ projects: ['SEC'] }), command())).toEqual({
        kind: 'ignored',
        reason: expect.stringMatching(/project OPS is not in sources\.jira\.triggers\.projects/),
      });
      expect(await handle(handler({ projects: [] }), command())).toMatchObject({ kind: 'ignored' });
      expect(d.jira.requests).toEqual([]);
    });

    it('an issue created with the label in a project not configured starts nothing', async () => {
      const created = jiraFixture(`${prefix}-issue-created`);
      created.issue.fields.labels = ['lestrade'];
      expect(await handle(handler({ projects: ['SEC'] }), created)).toMatchObject({ kind: 'ignored' });
    });

    it('the label counts only when a trusted account added it', async () => {
      if (deployment !== 'cloud') return;
      const labelled = jiraFixture('cloud-issue-updated-label-added');
      expect(await handle(handler(), labelled)).toEqual({
        kind: 'ignored',
        reason: expect.stringMatching(/the label was added by an untrusted account/),
      });
      d.jira.state.setGroups(aliceId, ['sre']);
      expect(issuesOf(await handle(handler(), labelled))).toHaveLength(1);
    });

    it('the group check is cached', async () => {
      d.jira.state.setGroups(aliceId, ['sre']);
      const h = handler();
      await handle(h, command());
      await handle(h, command());
      expect(d.jira.requests.filter((r) => r.path.endsWith('/user'))).toHaveLength(1);
    });
  });

  it('a created issue is mapped from the payload without asking Jira', async () => {
    const out = await handle(handler(), jiraFixture(`${prefix}-issue-created`));
    expect(issuesOf(out).map((i) => [i.identity, i.status])).toEqual([['OPS-7', 'open']]);
    expect(d.jira.requests).toEqual([]);
  });

  it('triggers.jql is checked through the API as key = X AND (<jql>)', async () => {
    const created = jiraFixture(`${prefix}-issue-created`);
    expect(issuesOf(await handle(handler({ jql: 'priority = High' }), created))).toHaveLength(1);
    expect(await handle(handler({ jql: 'priority = Low' }), created)).toEqual({
      kind: 'ignored',
      reason: 'OPS-7 does not match sources.jira.triggers.jql',
    });
    const search = d.jira.requests.find((r) => r.path.includes('/search'))!;
    const jql = search.method === 'POST' ? (search.body as { jql: string }).jql : search.query.jql;
    expect(jql).toBe('key = OPS-7 AND (priority = High)');
    if (deployment === 'cloud')
      expect((search.body as { reconcileIssues?: number[] }).reconcileIssues).toEqual([10042]);
  });

  it("a JQL Jira refuses ignores the delivery with Jira's reason; an unreachable Jira is retryable (503, Jira redelivers)", async () => {
    const created = jiraFixture(`${prefix}-issue-created`);
    const refused = await handle(handler({ jql: 'bogus ~~ (' }), created);
    expect(refused).toMatchObject({
      kind: 'ignored',
      reason: expect.stringMatching(/^OPS-7: checking sources.jira.triggers.jql failed: Jira answered HTTP 400/),
    });
    d.jira.violations.length = 0;
    d.jira.faults.add({ path: /\/search/, kind: 'status', status: 503 });
    await expect(handle(handler({ jql: 'priority = High' }), created)).rejects.toBeInstanceOf(RetryableError);
  });

  it("the command fetches the issue, with comments as untrusted text, under the comment's identity", async () => {
    d.jira.state.setGroups(aliceId, ['sre']);
    d.jira.addComment({ issueKey: 'OPS-7', body: 'rolled back, no change', author: alice });
    d.jira.addComment({ issueKey: 'OPS-7', body: 'our earlier RCA · lestrade:rca:OPS-7' });
    const out = await handle(handler(), jiraFixture(`${prefix}-comment-created-command`));
    const [issue] = issuesOf(out);
    expect(issue).toMatchObject({
      identity: `OPS-7/comment/${deployment === 'cloud' ? '10210' : '10310'}`,
      fingerprint: 'OPS-7',
      title: 'Checkout 502s',
      description: 'errors since 09:00',
    });
    expect(issue?.untrusted).toEqual([
      { label: expect.stringMatching(/^comment by Alice Oncall at /), text: 'rolled back, no change' },
    ]);
    expect(d.jira.requests.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining([`GET ${d.jira.apiPath}/myself`, `GET ${d.jira.apiPath}/issue/OPS-7`]),
    );
  });

  it("a command by Lestrade's own account starts nothing (accountId on Cloud, name/key on Data Center)", async () => {
    const doc = jiraFixture(`${prefix}-comment-created-command`);
    doc.comment.author =
      deployment === 'cloud'
        ? { accountId: d.jira.user.accountId, displayName: 'Lestrade Bot' }
        : { name: d.jira.user.name, key: d.jira.user.key, displayName: 'Lestrade Bot' };
    expect(await handle(handler(), doc)).toEqual({
      kind: 'ignored',
      reason: expect.stringMatching(/our own \(by Lestrade's account\)/),
    });
    expect(d.jira.requests.some((r) => r.path.includes('/issue/'))).toBe(false);
  });

  it('our own echoed comment starts nothing and asks Jira nothing', async () => {
    const out = await handle(handler(), jiraFixture(`${prefix}-comment-created-own`));
    expect(out.kind).toBe('ignored');
    if (deployment === 'cloud') expect(d.jira.requests).toEqual([]);
  });

  it('a command on an issue Lestrade cannot read is ignored with the reason', async () => {
    d.jira.state.setGroups(aliceId, ['sre']);
    d.jira.state.issues.clear();
    const out = await handle(handler(), jiraFixture(`${prefix}-comment-created-command`));
    expect(out).toMatchObject({
      kind: 'ignored',
      reason: expect.stringMatching(/^OPS-7 cannot be read with Lestrade's account/),
    });
  });

  it('resolution marks; other events are ignored; a bad payload names the field', async () => {
    const resolved = jiraFixture('cloud-issue-updated-resolved');
    expect(issuesOf(await handle(handler(), resolved)).map((i) => [i.identity, i.status])).toEqual([
      ['OPS-7', 'resolved'],
    ]);
    expect(await handle(handler(), jiraFixture('cloud-worklog-updated'))).toEqual({
      kind: 'ignored',
      reason: 'event worklog_updated starts nothing',
    });
    const bad = jiraFixture(`${prefix}-issue-created`);
    bad.issue.key = 'not a key';
    const err = await handle(handler(), bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).field).toBe('issue.key');
  });
});
