import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GithubDouble } from '../../../helpers/doubles/github-double.js';
import { runtimeConfig, statusIs } from '../../../helpers/runtime.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { startScriptedLlm, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { getJson, startTestService, waitFor, type TestService } from '../../../helpers/service.js';
import { stopAll } from '../../../helpers/stop-all.js';
import { seededDouble } from '../../../fixtures/github/double-setup.js';
import { commentCreated, EXAMPLE_REPO, issuesLabeled, signed } from '../../../fixtures/github/payloads.js';

/**
 * `/lestrade correct|partly|wrong` in GitHub comments, through serve: a trusted writer's verdict on the RCA lands
 * once (a redelivered webhook, the same comment again, an edited comment change nothing twice), answered with a
 * short reply comment only when it changed something; untrusted authors change nothing.
 */
const SECRET = 'ticket-feedback-secret';
const { owner, name } = EXAMPLE_REPO;
let redis: TestRedis;
let gh: GithubDouble;
let llm: ScriptedLlm;
let svc: TestService;

beforeAll(async () => {
  redis = await startRedis();
  gh = await seededDouble();
  gh.setPermission(owner, name, 'writer', 'write');
  gh.setPermission(owner, name, 'reader', 'read');
  llm = await startScriptedLlm(() => ({ content: '## Root cause\n\nThe pool ran dry.' }));
  svc = await startTestService(redis.url, {
    OPENAI_API_KEY: 'sk-x',
    OPENAI_BASE_URL: llm.baseUrl,
    LESTRADE_MODEL: 'scripted',
    LESTRADE_CONFIG: runtimeConfig('writeBack: { backoffMs: 200 }\n').config,
    GITHUB_TOKEN: gh.token,
    GITHUB_API_URL: gh.url,
    GITHUB_WEBHOOK_SECRET: SECRET,
  });
}, 60_000);

afterAll(async () => {
  await stopAll(svc, llm, gh, redis);
  expect(gh.violations).toEqual([]);
});

async function post(event: string, payload: unknown, deliveryId?: string) {
  const s = signed(event, payload, SECRET, deliveryId);
  const res = await fetch(`${svc.base}/webhooks/github`, { method: 'POST', headers: s.headers, body: s.body });
  return { status: res.status, body: await res.json() };
}

const onIssue = (payload: Record<string, any>, n: number) => ({
  ...payload,
  issue: { ...payload.issue, number: n, title: `issue-${n} is slow`, comments: 0 },
});

/** An issue labelled by a writer, investigated, its RCA comment posted. */
async function answered(n: number): Promise<string> {
  gh.addIssue({ owner, repo: name, number: n, title: `issue-${n} is slow`, labels: [] });
  const r = await post('issues', onIssue(issuesLabeled({ sender: 'writer' }), n));
  const id = r.body.queued[0] as string;
  await statusIs(svc.base, id, ['completed']);
  await waitFor('the RCA comment', async () => gh.state.comments(owner, name, n).length === 1);
  return id;
}

function comment(n: number, body: string, o: { login?: string; association?: string; id?: number } = {}) {
  return onIssue(
    commentCreated({ body, login: o.login ?? 'writer', association: o.association ?? 'COLLABORATOR', id: o.id }),
    n,
  );
}

const feedbackOf = async (id: string) => (await getJson(`${svc.base}/api/investigations/${id}`)).body.feedback;

describe('verdicts from GitHub comments, through serve', { timeout: 120_000 }, () => {
  it('records a trusted /lestrade wrong with the root cause once, and answers once', async () => {
    const id = await answered(31);
    const delivery = crypto.randomUUID();
    const payload = comment(31, 'Not quite.\n\n/lestrade wrong the DNS cache was stale', { id: 9031 });
    const r = await post('issue_comment', payload, delivery);
    expect(r).toMatchObject({ status: 200, body: { rated: true, investigation: id } });
    expect(await feedbackOf(id)).toEqual([
      {
        verdict: 'wrong',
        rootCause: 'the DNS cache was stale',
        by: { via: 'ticket', user: 'github:writer' },
        at: expect.any(String),
      },
    ]);
    const replies = () => gh.state.comments(owner, name, 31).slice(1);
    expect(replies()).toHaveLength(1);
    expect(replies()[0]!.body).toBe(
      `@writer Thanks: your verdict **wrong** on investigation \`${id.slice(0, 8)}\` is recorded.`,
    );

    // The same delivery again (GitHub's redelivery): dropped before it is read.
    expect((await post('issue_comment', payload, delivery)).body).toMatchObject({
      ignored: 'delivery already handled',
    });
    // The same comment under a new delivery id: taken, and changes nothing; no second reply.
    expect((await post('issue_comment', payload)).body).toMatchObject({ rated: false, changed: false });
    // An edit of the comment is not a command.
    const edited = { ...payload, action: 'edited' };
    expect((await post('issue_comment', edited)).body).toMatchObject({ ignored: expect.stringContaining('edited') });
    expect(replies()).toHaveLength(1);
    expect(await feedbackOf(id)).toHaveLength(1);

    // A later verdict from the same person replaces theirs: partly, with a note.
    const partly = await post('issue_comment', comment(31, '/lestrade partly and the pool too', { id: 9032 }));
    expect(partly.body).toMatchObject({ rated: true });
    expect(await feedbackOf(id)).toEqual([
      {
        verdict: 'partly',
        note: 'and the pool too',
        by: { via: 'ticket', user: 'github:writer' },
        at: expect.any(String),
      },
    ]);
    expect(replies()).toHaveLength(2);
  });

  it('an untrusted association, or a trusted one without write access, changes nothing', async () => {
    const id = await answered(32);
    const stranger = await post(
      'issue_comment',
      comment(32, '/lestrade correct', { login: 'mallory', association: 'NONE' }),
    );
    expect(stranger.body).toMatchObject({ ignored: '@mallory (NONE) is not trusted to run /lestrade correct' });
    const reader = await post('issue_comment', comment(32, '/lestrade correct', { login: 'reader' }));
    expect(reader.body).toMatchObject({ ignored: expect.stringContaining('@reader (read) may not rate RCAs') });
    // Quoted or in code, a verdict is not a command.
    const quoted = await post('issue_comment', comment(32, '> /lestrade correct\n\n```\n/lestrade wrong x\n```'));
    expect(quoted.body).toMatchObject({ ignored: 'comment is not a command' });
    expect(await feedbackOf(id)).toEqual([]);
    expect(gh.state.comments(owner, name, 32)).toHaveLength(1);
  });
});
