import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textOf } from '../../sources/jira/text-of.js';
import { hubSignature, jiraFixture, type Json } from '../fixtures/jira/fixtures.js';
import { startJiraDouble, type JiraDouble } from '../helpers/doubles/jira-double.js';

const COMMAND_AUTHOR = '712020:4f6e8d0c-9f7e-4c3b-a1d2-3b4c5d6e7f80';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { getJson, startTestService, waitFor, type TestService } from '../helpers/service.js';
import { stopAll } from '../helpers/stop-all.js';

/**
 * Jira → Lestrade → Jira through the real service: webhook deliveries as Jira sends them, real
 * Redis queues and workers, the scripted model, and the RCA written back to the Jira double.
 */
const SECRET = 'e2e-jira-secret';

function configFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'lestrade-jira-e2e-')), 'lestrade.yaml');
  // Commands count only from trusted people (issue 16): the command fixture's author is in group sre.
  writeFileSync(path, 'sources:\n  jira:\n    triggers: { projects: [OPS] }\n    trusted: { groups: [sre] }\n');
  return path;
}

async function deliver(svc: TestService, body: Json, headers: Record<string, string> = {}, sign?: string) {
  const raw = JSON.stringify(body);
  const res = await fetch(`${svc.base}/webhooks/jira`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(sign ? { 'x-hub-signature': hubSignature(raw, sign) } : {}),
      ...headers,
    },
    body: raw,
  });
  return { status: res.status, body: (await res.json()) as Json };
}

const investigations = async (svc: TestService) =>
  (await getJson(`${svc.base}/api/investigations`)).body.items as Array<{ id: string; status: string }>;

async function written(svc: TestService, id: string): Promise<Json> {
  return waitFor(
    `investigation ${id} written back`,
    async () => {
      const inv = (await getJson(`${svc.base}/api/investigations/${id}`)).body as Json;
      return inv.status === 'completed' && inv.writeBacks?.[0]?.status === 'written' && inv;
    },
    30_000,
  );
}

function createdPayload(jira: JiraDouble, name: 'cloud-issue-created' | 'dc-issue-created'): Json {
  const doc = jiraFixture(name);
  doc.issue.id = jira.state.issue('OPS-7')!.id;
  return doc;
}

describe('Jira Cloud: signed webhooks → investigation → one ADF comment, edited on re-investigation', () => {
  let redis: TestRedis;
  let jira: JiraDouble;
  let llm: ScriptedLlm;
  let svc: TestService;
  let firstId = '';
  let commentId = '';

  beforeAll(async () => {
    redis = await startRedis();
    jira = await startJiraDouble({ deployment: 'cloud' });
    jira.state.setGroups(COMMAND_AUTHOR, ['sre']);
    jira.addIssue({ key: 'OPS-7', summary: 'Checkout API returns 502', priority: 'High' });
    llm = await startScriptedLlm((_req, i) => ({
      content: `## Root cause\nAnalysis number ${i + 1}: the upstream pool is exhausted.`,
    }));
    svc = await startTestService(redis.url, {
      OPENAI_API_KEY: 'sk-e2e',
      OPENAI_BASE_URL: llm.baseUrl,
      LESTRADE_CONFIG: configFile(),
      JIRA_URL: jira.url,
      JIRA_DEPLOYMENT: 'cloud',
      JIRA_EMAIL: 'lestrade@example.com',
      JIRA_API_TOKEN: 'test-api-token',
      JIRA_WEBHOOK_SECRET: `old-secret,${SECRET}`,
    });
  }, 90_000);

  afterAll(async () => {
    await stopAll(svc, llm, jira, redis);
  });

  it('a signed jira:issue_created is investigated and answered with exactly one ADF comment', async () => {
    const res = await deliver(
      svc,
      createdPayload(jira, 'cloud-issue-created'),
      { 'x-atlassian-webhook-identifier': 'delivery-1' },
      SECRET,
    );
    expect(res).toMatchObject({ status: 200, body: { queued: [expect.any(String)], duplicates: [] } });
    firstId = res.body.queued[0];
    const inv = await written(svc, firstId);
    const comments = jira.state.comments('OPS-7');
    expect(comments).toHaveLength(1);
    commentId = comments[0]!.id;
    expect(inv.writeBacks).toEqual([
      expect.objectContaining({
        status: 'written',
        commentId,
        url: `${jira.url}/browse/OPS-7?focusedCommentId=${commentId}`,
        target: 'OPS-7',
      }),
    ]);
    expect(comments[0]!.body).toMatchObject({ type: 'doc', version: 1 });
    expect(textOf(comments[0]!.body)).toContain('Analysis number 1');
    // The delivery names OPS a service desk (projectTypeKey service_desk): the RCA is a JSM internal comment.
    expect(comments[0]!.properties).toEqual({
      lestrade: { marker: 'lestrade:rca:OPS-7' },
      'sd.public.comment': { internal: true },
    });
    expect(inv.issue).toMatchObject({ source: 'jira', identity: 'OPS-7', severity: 'high' });
    expect(jira.violations).toEqual([]);
  }, 60_000);

  it('our own comment, echoed back by Jira, starts nothing', async () => {
    const ours = jira.state.comments('OPS-7')[0]!;
    const echo = jiraFixture('cloud-comment-created-own');
    Object.assign(echo.comment, { id: ours.id, body: ours.body });
    const res = await deliver(svc, echo, { 'x-atlassian-webhook-identifier': 'delivery-echo' }, SECRET);
    expect(res).toMatchObject({ status: 200, body: { ignored: expect.stringContaining('our own'), queued: [] } });
    expect(await investigations(svc)).toHaveLength(1);
  });

  it('a replayed delivery id starts nothing, whatever it carries', async () => {
    const command = jiraFixture('cloud-comment-created-command');
    const res = await deliver(svc, command, { 'x-atlassian-webhook-identifier': 'delivery-1' }, SECRET);
    expect(res).toMatchObject({ status: 200, body: { ignored: 'delivery already handled', queued: [] } });
    expect(await investigations(svc)).toHaveLength(1);
  });

  it('a bad signature is 401 and starts nothing', async () => {
    const command = jiraFixture('cloud-comment-created-command');
    const res = await deliver(svc, command, { 'x-atlassian-webhook-identifier': 'delivery-bad' }, 'wrong-secret');
    expect(res.status).toBe(401);
    const unsigned = await deliver(svc, command, { 'x-atlassian-webhook-identifier': 'delivery-unsigned' });
    expect(unsigned.status).toBe(401);
    expect(await investigations(svc)).toHaveLength(1);
  });

  it('a "/lestrade investigate" comment re-investigates and edits the same comment (still one)', async () => {
    const res = await deliver(
      svc,
      jiraFixture('cloud-comment-created-command'),
      { 'x-atlassian-webhook-identifier': 'delivery-2' },
      'old-secret',
    );
    expect(res).toMatchObject({ status: 200, body: { queued: [expect.any(String)] } });
    const second = res.body.queued[0] as string;
    expect(second).not.toBe(firstId);
    const inv = await written(svc, second);
    expect(inv.issue.identity).toBe('OPS-7/comment/10210');
    expect(inv.writeBacks[0]).toMatchObject({ status: 'written', commentId, target: 'OPS-7' });
    const comments = jira.state.comments('OPS-7');
    expect(comments).toHaveLength(1);
    expect(textOf(comments[0]!.body)).toContain('Analysis number 2');
    expect(jira.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/comment'))).toHaveLength(1);
    expect(jira.violations).toEqual([]);
  }, 60_000);
});

describe('Jira Data Center: shared-token webhook → wiki-markup comment; Jira off → 404 with the reason', () => {
  let redis: TestRedis;
  let jira: JiraDouble;
  let llm: ScriptedLlm;
  let svc: TestService;
  let off: TestService;

  beforeAll(async () => {
    redis = await startRedis();
    jira = await startJiraDouble({ deployment: 'datacenter' });
    jira.addIssue({ key: 'OPS-7', summary: 'Checkout API returns 502', priority: 'Blocker' });
    llm = await startScriptedLlm(() => ({ content: '## Root cause\nThe *upstream* pool is exhausted; see {panel}.' }));
    svc = await startTestService(redis.url, {
      OPENAI_API_KEY: 'sk-e2e',
      OPENAI_BASE_URL: llm.baseUrl,
      LESTRADE_CONFIG: configFile(),
      JIRA_URL: jira.url,
      JIRA_PAT: 'test-pat',
      JIRA_WEBHOOK_TOKEN: 'dc-token',
    });
    off = await startTestService(
      redis.url,
      { JIRA_URL: jira.url, JIRA_EMAIL: 'someone@example.com' },
      { workers: false },
    );
  }, 90_000);

  afterAll(async () => {
    await stopAll(off, svc, llm, jira, redis);
  });

  it('a delivery with the shared token is investigated and answered in wiki markup', async () => {
    const wrong = await deliver(svc, createdPayload(jira, 'dc-issue-created'), { 'x-lestrade-token': 'nope' });
    expect(wrong.status).toBe(401);
    const basic = `Basic ${Buffer.from('jira:dc-token').toString('base64')}`;
    const res = await deliver(svc, createdPayload(jira, 'dc-issue-created'), {
      authorization: basic,
      'x-atlassian-webhook-identifier': 'dc-1',
    });
    expect(res).toMatchObject({ status: 200, body: { queued: [expect.any(String)] } });
    const inv = await written(svc, res.body.queued[0]);
    const comments = jira.state.comments('OPS-7');
    expect(comments).toHaveLength(1);
    expect(inv.writeBacks[0]).toMatchObject({ status: 'written', commentId: comments[0]!.id, target: 'OPS-7' });
    expect(comments[0]!.body).toEqual(expect.stringMatching(/^h3\. Lestrade — automated root-cause analysis/));
    expect(comments[0]!.body).toContain('The _upstream_ pool is exhausted; see \\{panel\\}.');
    expect(comments[0]!.body).toContain('{{lestrade:rca:OPS-7}}');
    expect(inv.issue).toMatchObject({ severity: 'critical', sourceInstance: new URL(jira.url).host });
    expect(jira.violations).toEqual([]);
  }, 60_000);

  it('with Jira off, /webhooks/jira answers 404 saying why', async () => {
    const res = await deliver(off, createdPayload(jira, 'dc-issue-created'), { 'x-lestrade-token': 'dc-token' });
    expect(res).toEqual({ status: 404, body: { error: 'source jira is off: no JIRA_PAT for Jira Data Center' } });
  });
});
