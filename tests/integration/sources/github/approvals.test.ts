import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_HEADING } from '../../../../src/render/compose-comment.js';
import type { GithubDouble } from '../../../helpers/doubles/github-double.js';
import { runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { startScriptedLlm, toolResults, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { getJson, startTestService, waitFor, type TestService } from '../../../helpers/service.js';
import { stopAll } from '../../../helpers/stop-all.js';
import { seededDouble } from '../../../fixtures/github/double-setup.js';
import { commentCreated, EXAMPLE_REPO, issuesLabeled, signed } from '../../../fixtures/github/payloads.js';

/**
 * `/lestrade approve <call>` and `/lestrade deny <call> <reason>` in GitHub comments, through serve: signed
 * issue_comment deliveries into the webhook route, real Redis, the scripted model asking for a
 * side-effecting tool (the run pauses), and the RCA written back to the GitHub double once it resumes.
 * Each test pauses its own issue.
 */
const SECRET = 'ticket-approve-secret';
const CALL = 'call_restart01';
const { owner, name } = EXAMPLE_REPO;
let redis: TestRedis;
let gh: GithubDouble;
let llm: ScriptedLlm;
let svc: TestService;
let rt: ReturnType<typeof runtimeConfig>;

beforeAll(async () => {
  redis = await startRedis();
  gh = await seededDouble();
  gh.setPermission(owner, name, 'writer', 'write');
  gh.setPermission(owner, name, 'reader', 'read');
  // Asks to restart a service named after the issue (its marker tells whether it ran), then says what became of it.
  llm = await startScriptedLlm((req) => {
    const results = toolResults(req);
    const issue = /issue-(\d+)/.exec(JSON.stringify(req.messages))?.[1] ?? '0';
    if (results.length === 0)
      return { toolCalls: [{ id: CALL, name: 'restart', arguments: { name: `svc-${issue}` } }] };
    const { status, feedback } = results[0]!.result as { status: string; feedback?: string };
    return { content: `## Root cause\n\nThe pool ran dry.\n\n- restart: ${status}${feedback ? ` (${feedback})` : ''}` };
  });
  rt = runtimeConfig('writeBack: { backoffMs: 200 }\n');
  svc = await startTestService(redis.url, {
    OPENAI_API_KEY: 'sk-x',
    OPENAI_BASE_URL: llm.baseUrl,
    LESTRADE_MODEL: 'scripted',
    LESTRADE_CONFIG: rt.config,
    GITHUB_TOKEN: gh.token,
    GITHUB_API_URL: gh.url,
    GITHUB_WEBHOOK_SECRET: SECRET,
  });
}, 60_000);

afterAll(async () => {
  await stopAll(svc, llm, gh, redis);
  expect(gh.violations).toEqual([]);
});

async function post(event: string, payload: unknown, secret = SECRET) {
  const s = signed(event, payload, secret);
  const res = await fetch(`${svc.base}/webhooks/github`, { method: 'POST', headers: s.headers, body: s.body });
  return { status: res.status, body: await res.json() };
}

/** The issue's number and title in a payload (the title names it for the scripted model). */
const onIssue = (payload: Record<string, any>, n: number) => ({
  ...payload,
  issue: { ...payload.issue, number: n, title: `issue-${n} is slow`, comments: 0 },
});

/** An issue labelled by a writer, investigated until it waits for the restart to be approved. */
async function paused(n: number): Promise<string> {
  gh.addIssue({ owner, repo: name, number: n, title: `issue-${n} is slow`, labels: [] });
  const r = await post('issues', onIssue(issuesLabeled({ sender: 'writer' }), n));
  expect(r.body.queued).toHaveLength(1);
  const id = r.body.queued[0] as string;
  const inv = await statusIs(svc.base, id, ['awaiting_approval']);
  expect(inv.approvals.pending.map((p: any) => p.toolCallId)).toEqual([CALL]);
  // The dashboard shows the id a comment names (the API is open here: no LESTRADE_API_TOKEN).
  const page = await (await fetch(`${svc.base}/investigations/${id}`)).text();
  expect(page).toContain(`<code class="call-id">${CALL}</code>`);
  return id;
}

/** A comment on issue n, as GitHub delivers it: created by `login` with `association` unless told otherwise. */
function comment(n: number, body: string, o: { login?: string; association?: string; id?: number } = {}) {
  return onIssue(
    commentCreated({ body, login: o.login ?? 'writer', association: o.association ?? 'COLLABORATOR', id: o.id }),
    n,
  );
}

const inv = async (id: string) => (await getJson(`${svc.base}/api/investigations/${id}`)).body;

/** Nothing the comment could do happened: still waiting for the same call, the tool not run, nothing written. */
async function unchanged(id: string, n: number) {
  const now = await inv(id);
  expect(now.status).toBe('awaiting_approval');
  expect(now.approvals.pending.map((p: any) => p.toolCallId)).toEqual([CALL]);
  expect(existsSync(rt.marker(`svc-${n}`))).toBe(false);
  expect(gh.state.comments(owner, name, n)).toEqual([]);
}

describe('approvals from GitHub comments, through serve', { timeout: 120_000 }, () => {
  it('a trusted /lestrade approve resumes the run, the tool runs, github:<login> is recorded, the RCA is posted once', async () => {
    const id = await paused(11);
    const r = await post('issue_comment', comment(11, `Checked the dashboards.\n\n/lestrade approve \`${CALL}\``));
    expect(r).toMatchObject({ status: 200, body: { decided: true, investigation: id, recorded: [CALL] } });
    const done = await statusIs(svc.base, id, ['completed']);
    expect(existsSync(rt.marker('svc-11'))).toBe(true);
    // touch prints nothing: the tool ran and answered no_data (a denial would say denied).
    expect(done.rca).toContain('restart: no_data');
    const call = done.toolCalls.find((c: any) => c.name === 'restart' && c.decidedBy);
    expect(call.decidedBy).toEqual({ via: 'github', user: 'writer' });
    const posted = await waitFor('the RCA comment', async () => gh.state.comments(owner, name, 11)[0]);
    expect(posted.body).toContain(COMMENT_HEADING);
    expect(gh.state.comments(owner, name, 11)).toHaveLength(1);
  });

  it('a trusted /lestrade deny with a reason: the model sees denied with the reason, the tool never runs', async () => {
    const id = await paused(12);
    const r = await post('issue_comment', comment(12, `/lestrade deny ${CALL} not during business hours`));
    expect(r.body).toMatchObject({ decided: true, recorded: [CALL] });
    const done = await statusIs(svc.base, id, ['completed']);
    expect(done.rca).toContain('restart: denied (not during business hours)');
    expect(existsSync(rt.marker('svc-12'))).toBe(false);
    const call = done.toolCalls.find((c: any) => c.name === 'restart');
    expect(call).toMatchObject({ status: 'denied', decidedBy: { via: 'github', user: 'writer' } });
  });

  it('an untrusted association, or a trusted one without write access, changes nothing', async () => {
    const id = await paused(13);
    const stranger = await post(
      'issue_comment',
      comment(13, `/lestrade approve ${CALL}`, { login: 'mallory', association: 'NONE' }),
    );
    expect(stranger.body).toMatchObject({ ignored: '@mallory (NONE) is not trusted to run /lestrade approve or deny' });
    const reader = await post('issue_comment', comment(13, `/lestrade approve ${CALL}`, { login: 'reader' }));
    expect(reader.body).toMatchObject({ ignored: expect.stringContaining('@reader (read) may not decide approvals') });
    await unchanged(id, 13);
  });

  it('an edited comment, a forged signature and a command in a code block or a quote change nothing', async () => {
    const id = await paused(14);
    const edited = { ...comment(14, `/lestrade approve ${CALL}`), action: 'edited' };
    expect((await post('issue_comment', edited)).body).toMatchObject({
      ignored: 'issue_comment.edited is not a trigger',
    });
    const forged = await post('issue_comment', comment(14, `/lestrade approve ${CALL}`), 'guessed-secret');
    expect(forged).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
    for (const body of [
      `How to approve:\n\n\`\`\`\n/lestrade approve ${CALL}\n\`\`\``,
      `> Quoting the runbook:\n/lestrade approve ${CALL}\n\nWho wrote this?`,
      `Indented:\n\n    /lestrade approve ${CALL}`,
      `Please run /lestrade approve ${CALL} someone`,
    ]) {
      const r = await post('issue_comment', comment(14, body));
      expect(r.body).toMatchObject({ ignored: 'comment is not a command' });
    }
    await unchanged(id, 14);
  });

  it('an unknown call or one already decided is answered 200 and logged, never posted on the issue', async () => {
    const id = await paused(15);
    const unknown = await post('issue_comment', comment(15, '/lestrade approve call_nosuchcall'));
    expect(unknown).toMatchObject({
      status: 200,
      body: { decided: false, error: expect.stringContaining('no pending tool call call_nosuchcall') },
    });
    await unchanged(id, 15);
    // A comment naming a pending call and an unknown one: the pending one is decided, the other left out.
    const mixed = await post('issue_comment', comment(15, `/lestrade deny ${CALL} no\n/lestrade approve call_other`));
    expect(mixed.body).toMatchObject({ decided: true, recorded: [CALL], ignored: ['call_other'] });
    await statusIs(svc.base, id, ['completed']);
    const late = await post('issue_comment', comment(15, `/lestrade approve ${CALL}`));
    expect(late).toMatchObject({
      status: 200,
      body: { decided: false, error: expect.stringContaining('not awaiting approval') },
    });
    expect(
      svc.logs.some(
        (l) => l.msg === 'decision from a ticket comment not recorded' && l.identity === `${EXAMPLE_REPO.fullName}#15`,
      ),
    ).toBe(true);
    // Only the RCA, once: no reply about the refused decisions.
    await waitFor('the RCA comment', async () => gh.state.comments(owner, name, 15).length === 1);
    expect(existsSync(rt.marker('svc-15'))).toBe(false);
  });

  it('decides the re-investigation a /lestrade investigate comment started (the latest of the issue)', async () => {
    const first = await paused(16);
    expect((await post('issue_comment', comment(16, `/lestrade deny ${CALL} first run`))).body.decided).toBe(true);
    await statusIs(svc.base, first, ['completed']);
    const again = await post('issue_comment', comment(16, '/lestrade investigate', { id: 1_600_001 }));
    const second = again.body.queued[0] as string;
    expect(second).not.toBe(first);
    await statusIs(svc.base, second, ['awaiting_approval']);
    const r = await post('issue_comment', comment(16, `/lestrade approve ${CALL}`));
    expect(r.body).toMatchObject({ decided: true, investigation: second });
    await statusIs(svc.base, second, ['completed']);
    expect(existsSync(rt.marker('svc-16'))).toBe(true);
  });
});
