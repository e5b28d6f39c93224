import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubSignature, jiraFixture, type Json } from '../../../fixtures/jira/fixtures.js';
import { startJiraDouble, type JiraDouble } from '../../../helpers/doubles/jira-double.js';
import { runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { startScriptedLlm, toolResults, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { getJson, startTestService, waitFor, type TestService } from '../../../helpers/service.js';
import { stopAll } from '../../../helpers/stop-all.js';

/**
 * `/lestrade approve <call>` and `/lestrade deny <call> <reason>` in Jira Cloud comments, through serve:
 * signed comment_created deliveries, the author's trust checked through the Jira double (group sre), the
 * scripted model asking for a side-effecting tool, and the RCA written back once the run resumes.
 */
const SECRET = 'jira-approve-secret';
const CALL = 'call_restart02';
const ALICE = '712020:4f6e8d0c-9f7e-4c3b-a1d2-3b4c5d6e7f80';
const MALLORY = '712020:00000000-0000-4000-8000-00000000bad0';
let redis: TestRedis;
let jira: JiraDouble;
let llm: ScriptedLlm;
let svc: TestService;
let rt: ReturnType<typeof runtimeConfig>;

beforeAll(async () => {
  redis = await startRedis();
  jira = await startJiraDouble({ deployment: 'cloud' });
  jira.state.setGroups(ALICE, ['sre']);
  jira.state.setGroups(MALLORY, ['jira-users']);
  llm = await startScriptedLlm((req) => {
    const results = toolResults(req);
    const issue = /issue-(\d+)/.exec(JSON.stringify(req.messages))?.[1] ?? '0';
    if (results.length === 0)
      return { toolCalls: [{ id: CALL, name: 'restart', arguments: { name: `svc-${issue}` } }] };
    const { status, feedback } = results[0]!.result as { status: string; feedback?: string };
    return { content: `## Root cause\n\nThe pool ran dry.\n\n- restart: ${status}${feedback ? ` (${feedback})` : ''}` };
  });
  rt = runtimeConfig(
    'writeBack: { backoffMs: 200 }\nsources:\n  jira:\n    triggers: { projects: [OPS] }\n    trusted: { groups: [sre] }\n',
  );
  svc = await startTestService(redis.url, {
    OPENAI_API_KEY: 'sk-x',
    OPENAI_BASE_URL: llm.baseUrl,
    LESTRADE_MODEL: 'scripted',
    LESTRADE_CONFIG: rt.config,
    JIRA_URL: jira.url,
    JIRA_DEPLOYMENT: 'cloud',
    JIRA_EMAIL: 'lestrade@example.com',
    JIRA_API_TOKEN: 'test-api-token',
    JIRA_WEBHOOK_SECRET: SECRET,
  });
}, 60_000);

afterAll(async () => {
  await stopAll(svc, llm, jira, redis);
  expect(jira.violations).toEqual([]);
});

async function deliver(body: Json, secret = SECRET) {
  const raw = JSON.stringify(body);
  const res = await fetch(`${svc.base}/webhooks/jira`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature': hubSignature(raw, secret) },
    body: raw,
  });
  return { status: res.status, body: (await res.json()) as Json };
}

/** Issue OPS-n created (a trigger by itself in project OPS), investigated until the restart waits for approval. */
async function paused(n: number): Promise<string> {
  const created = jira.addIssue({ key: `OPS-${n}`, summary: `issue-${n} is slow`, priority: 'High' });
  const doc = jiraFixture('cloud-issue-created');
  Object.assign(doc.issue, { id: created.id, key: created.key });
  doc.issue.fields.summary = created.summary;
  const r = await deliver(doc);
  expect(r.body.queued).toHaveLength(1);
  const id = r.body.queued[0] as string;
  await statusIs(svc.base, id, ['awaiting_approval']);
  return id;
}

/** A comment_created delivery on OPS-n by Alice (trusted) unless another author is given. */
function comment(n: number, body: unknown, author?: Json): Json {
  const doc = jiraFixture('cloud-comment-created-command');
  Object.assign(doc.issue, { key: `OPS-${n}` });
  doc.comment.body = body;
  if (author) doc.comment.author = { ...doc.comment.author, ...author };
  return doc;
}

const inv = async (id: string) => (await getJson(`${svc.base}/api/investigations/${id}`)).body;

async function unchanged(id: string, n: number) {
  const now = await inv(id);
  expect(now.status).toBe('awaiting_approval');
  expect(now.approvals.pending.map((p: any) => p.toolCallId)).toEqual([CALL]);
  expect(existsSync(rt.marker(`svc-${n}`))).toBe(false);
  expect(jira.state.comments(`OPS-${n}`)).toEqual([]);
}

/** An ADF document of paragraphs and, where a line starts with "```", a code block. */
const adf = (...blocks: string[]) => ({
  type: 'doc',
  version: 1,
  content: blocks.map((b) =>
    b.startsWith('```')
      ? { type: 'codeBlock', content: [{ type: 'text', text: b.slice(3) }] }
      : { type: 'paragraph', content: [{ type: 'text', text: b }] },
  ),
});

describe('approvals from Jira comments, through serve', { timeout: 120_000 }, () => {
  it('a trusted /lestrade approve (ADF) resumes the run, the tool runs, jira:<accountId> is recorded', async () => {
    const id = await paused(31);
    const r = await deliver(comment(31, adf('Looks safe.', `/lestrade approve ${CALL}`)));
    expect(r).toMatchObject({ status: 200, body: { decided: true, investigation: id, recorded: [CALL] } });
    const done = await statusIs(svc.base, id, ['completed']);
    expect(existsSync(rt.marker('svc-31'))).toBe(true);
    const call = done.toolCalls.find((c: any) => c.name === 'restart' && c.decidedBy);
    expect(call.decidedBy).toEqual({ via: 'jira', user: ALICE, name: 'Alice Oncall' });
    await waitFor('the RCA comment', async () => jira.state.comments('OPS-31').length === 1);
  });

  it('a trusted /lestrade deny with a reason (wiki markup): the model sees denied with it; the tool never runs', async () => {
    const id = await paused(32);
    const r = await deliver(comment(32, `/lestrade deny {{${CALL}}} wait for the change freeze to end`));
    expect(r.body).toMatchObject({ decided: true, recorded: [CALL] });
    const done = await statusIs(svc.base, id, ['completed']);
    expect(done.rca).toContain('restart: denied (wait for the change freeze to end)');
    expect(existsSync(rt.marker('svc-32'))).toBe(false);
  });

  it('an untrusted author, an edited comment, a bad signature, code blocks and quotes change nothing', async () => {
    const id = await paused(33);
    const approve = `/lestrade approve ${CALL}`;
    const mallory = await deliver(comment(33, approve, { accountId: MALLORY, displayName: 'Mallory' }));
    expect(mallory.body).toMatchObject({ ignored: expect.stringContaining('Mallory is in none of') });
    const edited = { ...comment(33, approve), webhookEvent: 'comment_updated' };
    expect((await deliver(edited)).body).toMatchObject({ ignored: 'event comment_updated starts nothing' });
    expect((await deliver(comment(33, approve), 'guessed')).status).toBe(401);
    for (const body of [
      `{code}\n${approve}\n{code}`,
      `{quote}\n${approve}\n{quote}`,
      `bq. ${approve}`,
      adf('How to approve:', `\`\`\`${approve}`),
      { type: 'doc', version: 1, content: [{ type: 'blockquote', content: adf(approve).content }] },
    ]) {
      const r = await deliver(comment(33, body));
      expect(r.body).toMatchObject({ ignored: expect.stringContaining('is not the command') });
    }
    await unchanged(id, 33);
  });
});
