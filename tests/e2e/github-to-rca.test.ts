import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_HEADING } from '../../src/render/compose-comment.js';
import type { GithubDouble } from '../helpers/doubles/github-double.js';
import { getInvestigation, writtenBack } from '../helpers/investigations-api.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { getJson, startTestService, waitFor, type TestService } from '../helpers/service.js';
import { stopAll } from '../helpers/stop-all.js';
import { BOT, seededDouble } from '../fixtures/github/double-setup.js';
import { commentCreated, EXAMPLE_REPO, issuesLabeled, signed } from '../fixtures/github/payloads.js';

/**
 * GitHub → Lestrade → GitHub through the real service: signed webhooks into the HTTP route,
 * intake on a real Redis, the loop against a scripted model, and the write-back job posting to
 * the GitHub double (which validates every request against GitHub's spec).
 */
const SECRET = 'e2e-webhook-secret';
const TARGET = 'Codertocat/Hello-World#1';
const { owner, name } = EXAMPLE_REPO;
let redis: TestRedis;
let gh: GithubDouble;
let llm: ScriptedLlm;
let svc: TestService;

beforeAll(async () => {
  redis = await startRedis();
  gh = await seededDouble();
  gh.setPermission(owner, name, 'writer', 'write');
  gh.addIssue({ owner, repo: name, number: 2, title: 'Checkout is slow', labels: [] });
  llm = await startScriptedLlm((req, call) => ({
    content: `## Root cause\nRCA number ${call + 1} for: ${/Title: (.*)/.exec(req.messages[1]!.content ?? '')?.[1]}`,
  }));
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-gh-e2e-'));
  writeFileSync(join(dir, 'lestrade.yaml'), 'writeBack: { backoffMs: 200 }\n');
  svc = await startTestService(redis.url, {
    OPENAI_API_KEY: 'sk-e2e',
    OPENAI_BASE_URL: llm.baseUrl,
    LESTRADE_CONFIG: join(dir, 'lestrade.yaml'),
    GITHUB_TOKEN: gh.token,
    GITHUB_API_URL: gh.url,
    GITHUB_WEBHOOK_SECRET: `${SECRET},previous-secret`,
  });
}, 60_000);

afterAll(async () => {
  await stopAll(svc, llm, gh, redis);
  expect(gh.violations).toEqual([]);
});

async function post(event: string, payload: unknown, opts: { secret?: string; deliveryId?: string } = {}) {
  const s = signed(event, payload, opts.secret ?? SECRET, opts.deliveryId);
  const res = await fetch(`${svc.base}/webhooks/github`, { method: 'POST', headers: s.headers, body: s.body });
  return { status: res.status, body: await res.json(), deliveryId: s.headers['x-github-delivery'] };
}

const list = async () =>
  (await getJson(`${svc.base}/api/investigations`)).body.items as Array<{ id: string; status: string }>;
const get = (id: string) => getInvestigation(svc, id);
const written = (id: string) => writtenBack(svc, id, 30_000);
const commentsOn = (n: number) => gh.state.comments(owner, name, n);

describe('GitHub issues → investigation → one RCA comment', () => {
  let firstDelivery = '';
  let commentId = '';

  it('a labelled issue is investigated and its RCA posted as one comment', async () => {
    const r = await post('issues', issuesLabeled({ sender: 'writer' }));
    expect(r.status).toBe(200);
    expect(r.body.queued).toHaveLength(1);
    firstDelivery = r.deliveryId;
    const inv = await written(r.body.queued[0]);
    expect(inv.status).toBe('completed');
    expect(inv.issue).toMatchObject({ source: 'github', identity: TARGET, locator: { key: TARGET } });
    expect(commentsOn(1)).toHaveLength(1);
    const c = commentsOn(1)[0]!;
    expect(c.user.login).toBe(BOT);
    expect(c.body).toContain(COMMENT_HEADING);
    expect(c.body).toContain('RCA number 1 for: Spelling error in the README file');
    commentId = String(c.id);
    expect(inv.writeBacks).toEqual([
      expect.objectContaining({
        status: 'written',
        commentId,
        url: `https://github.com/${owner}/${name}/issues/1#issuecomment-${commentId}`,
        target: TARGET,
      }),
    ]);
  });

  it('our comment, echoed back by GitHub, starts nothing', async () => {
    const ours = commentsOn(1)[0]!;
    const echo = commentCreated({ id: ours.id, login: BOT, body: ours.body, association: 'NONE' });
    const r = await post('issue_comment', echo);
    expect(r.body).toMatchObject({ ignored: 'our own comment (it carries our marker)', queued: [] });
    expect(await list()).toHaveLength(1);
  });

  it('a replayed delivery, a bad signature and an untrusted author start nothing', async () => {
    const replay = await post('issues', issuesLabeled({ sender: 'writer' }), { deliveryId: firstDelivery });
    expect(replay).toMatchObject({ status: 200, body: { ignored: 'delivery already handled' } });
    const forged = await post('issues', issuesLabeled({ sender: 'writer' }), { secret: 'guessed' });
    expect(forged).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
    const stranger = await post('issue_comment', commentCreated({ login: 'mallory', association: 'NONE' }));
    expect(stranger.body).toMatchObject({
      ignored: expect.stringContaining('@mallory (NONE) is not trusted'),
      queued: [],
    });
    const again = await post('issues', issuesLabeled({ sender: 'writer' }));
    expect(again.body).toMatchObject({ queued: [], duplicates: [expect.any(String)] });
    expect(await list()).toHaveLength(1);
  });

  it('a trusted /lestrade investigate comment re-investigates and edits the same comment', async () => {
    const r = await post(
      'issue_comment',
      commentCreated({ login: 'writer', association: 'COLLABORATOR', id: 990001 }),
      { secret: 'previous-secret' },
    );
    expect(r.body.queued).toHaveLength(1);
    const inv = await written(r.body.queued[0]);
    expect(inv.issue.identity).toBe(`${TARGET}/comment/990001`);
    expect(commentsOn(1)).toHaveLength(1);
    expect(String(commentsOn(1)[0]!.id)).toBe(commentId);
    expect(commentsOn(1)[0]!.body).toContain('RCA number 2');
    expect(inv.writeBacks[0]).toMatchObject({ status: 'written', commentId });
    expect(await list()).toHaveLength(2);
  });

  it('GitHub answering 429 leaves the write-back pending with the error, and it is retried after Retry-After', async () => {
    gh.faults.add({
      method: 'POST',
      path: /\/issues\/2\/comments$/,
      kind: 'status',
      status: 429,
      headers: { 'retry-after': '2' },
      body: { message: 'API rate limit exceeded' },
    });
    // Adapted: the example's issue renumbered to the seeded issue #2.
    const payload = issuesLabeled({ sender: 'writer' });
    const r = await post('issues', { ...payload, issue: { ...payload.issue, number: 2, title: 'Checkout is slow' } });
    const id = r.body.queued[0] as string;
    const pending = await waitFor(
      'a pending write-back with the error',
      async () => {
        const wb = (await get(id)).writeBacks?.[0];
        return wb?.status === 'pending' && wb.error && wb;
      },
      30_000,
    );
    expect(pending.error).toMatch(/github answered HTTP 429/);
    expect(commentsOn(2)).toHaveLength(0);
    const inv = await written(id);
    expect(inv.writeBacks[0].attempts).toBeGreaterThanOrEqual(2);
    expect(commentsOn(2)).toHaveLength(1);
    expect(gh.faults.pending).toHaveLength(0);
  }, 40_000);
});

describe('GitHub off', () => {
  it('POST /webhooks/github answers 404 with the reason', async () => {
    const off = await startTestService(redis.url, { GITHUB_WEBHOOK_SECRET: SECRET }, { workers: false });
    try {
      const s = signed('issues', issuesLabeled(), SECRET);
      const res = await fetch(`${off.base}/webhooks/github`, { method: 'POST', headers: s.headers, body: s.body });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'source github is off: no GITHUB_TOKEN or GitHub App credentials' });
    } finally {
      await off.close();
    }
  });
});
