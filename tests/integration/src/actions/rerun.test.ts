import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Continuations } from '../../../../src/queue/continuations.js';
import { rerunInvestigation } from '../../../../src/actions/rerun.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { keys } from '../../../../src/redis/keys.js';
import type { GithubDouble } from '../../../helpers/doubles/github-double.js';
import { getInvestigation, type Json } from '../../../helpers/investigations-api.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { startScriptedLlm, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { postJson } from '../../../helpers/runtime.js';
import { startTestService, waitFor, type TestService } from '../../../helpers/service.js';
import { stopAll } from '../../../helpers/stop-all.js';
import { Redis } from 'ioredis';
import { BOT, seededDouble } from '../../../fixtures/github/double-setup.js';
import { EXAMPLE_REPO, issuesLabeled, signed } from '../../../fixtures/github/payloads.js';

/**
 * POST /api/investigations/:id/rerun through the real service: a completed investigation runs
 * again from its issue as run 2 (its own job id), and its write-back edits the comment run 1
 * posted on the GitHub double instead of adding a second one.
 */
const SECRET = 'rerun-webhook-secret';
const { owner, name } = EXAMPLE_REPO;
let redis: TestRedis;
let gh: GithubDouble;
let llm: ScriptedLlm;
let svc: TestService;
/** The model fails while this is set (HTTP 400: a permanent error, so the run fails at once). */
let failing = false;
let admin: Redis;

beforeAll(async () => {
  redis = await startRedis();
  gh = await seededDouble();
  gh.setPermission(owner, name, 'writer', 'write');
  gh.addIssue({ owner, repo: name, number: 2, title: 'Checkout is slow', labels: [] });
  admin = new Redis(redis.url);
  llm = await startScriptedLlm((_req, call) =>
    failing
      ? { status: 400, errorMessage: 'scripted bad request' }
      : { content: `## Root cause\nRCA number ${call + 1}` },
  );
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-rerun-'));
  writeFileSync(join(dir, 'lestrade.yaml'), 'writeBack: { backoffMs: 200 }\n');
  svc = await startTestService(redis.url, {
    OPENAI_API_KEY: 'sk-rerun',
    OPENAI_BASE_URL: llm.baseUrl,
    LESTRADE_CONFIG: join(dir, 'lestrade.yaml'),
    GITHUB_TOKEN: gh.token,
    GITHUB_API_URL: gh.url,
    GITHUB_WEBHOOK_SECRET: SECRET,
  });
}, 60_000);

afterAll(async () => {
  admin.disconnect();
  await stopAll(svc, llm, gh, redis);
  expect(gh.violations).toEqual([]);
});

async function deliverIssue(number = 1): Promise<string> {
  const payload = issuesLabeled({ sender: 'writer' });
  const s = signed('issues', { ...payload, issue: { ...payload.issue, number } }, SECRET);
  const res = await fetch(`${svc.base}/webhooks/github`, { method: 'POST', headers: s.headers, body: s.body });
  const body = (await res.json()) as { queued: string[] };
  expect(body.queued).toHaveLength(1);
  return body.queued[0]!;
}

const rerun = (id: string) => postJson(`${svc.base}/api/investigations/${id}/rerun`, {});
const comments = (n = 1) => gh.state.comments(owner, name, n);

/** Waits until the record is at run `run` and its write-back reached `status`. */
const runWritten = (id: string, run: number, status = 'written') =>
  waitFor(
    `run ${run} of ${id} written back`,
    async () => {
      const inv = await getInvestigation(svc, id);
      return inv.run === run && inv.writeBacks?.[0]?.status === status && inv;
    },
    30_000,
  );

describe('re-run', { timeout: 90_000 }, () => {
  let id = '';
  let first: Json;

  it('runs a completed investigation again as a new run whose write-back edits the first comment', async () => {
    id = await deliverIssue();
    first = await runWritten(id, 1);
    expect(first).toMatchObject({ status: 'completed', rca: '## Root cause\nRCA number 1', runId: id });
    expect(comments()).toHaveLength(1);
    const commentId = String(comments()[0]!.id);
    const calls = llm.requests.length;

    const res = await rerun(id);
    expect(res).toMatchObject({ status: 202, body: { status: 'queued', run: 2, runId: `${id}-rerun-2` } });
    const again = await runWritten(id, 2);
    expect(again).toMatchObject({ status: 'completed', rca: '## Root cause\nRCA number 2', runId: `${id}-rerun-2` });
    // The same issue, started over: one new model call whose conversation is the issue alone.
    expect(llm.requests.length).toBe(calls + 1);
    expect(llm.requests.at(-1)!.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(again.issue).toEqual(first.issue);
    expect(again.startedAt > first.finishedAt).toBe(true);
    // One comment still, edited in place to carry the new RCA.
    expect(comments()).toHaveLength(1);
    expect(String(comments()[0]!.id)).toBe(commentId);
    expect(comments()[0]!.user.login).toBe(BOT);
    expect(comments()[0]!.body).toContain('RCA number 2');
    expect(again.writeBacks).toEqual([expect.objectContaining({ status: 'written', commentId })]);
  });

  it('refuses an unknown id (404) and a run that is not finished (409), changing nothing', async () => {
    expect(await rerun('00000000-0000-4000-8000-000000000000')).toMatchObject({ status: 404 });
    expect(await rerun('not-an-id')).toMatchObject({ status: 404 });
    await admin.hset(keys.investigation(id), 'status', 'running');
    const busy = await rerun(id);
    expect(busy).toMatchObject({ status: 409, body: { error: expect.stringContaining('(status: running)') } });
    expect(await getInvestigation(svc, id)).toMatchObject({ run: 2, rca: '## Root cause\nRCA number 2' });
    await admin.hset(keys.investigation(id), 'status', 'completed');
  });

  it('runs a failed investigation again, and its re-run writes back', async () => {
    failing = true;
    const other = await deliverIssue(2);
    const failed = await waitFor('the failure', async () => {
      const inv = await getInvestigation(svc, other);
      return inv.status === 'failed' && inv;
    });
    expect(failed.error).toContain('scripted bad request');
    expect(comments(2)).toHaveLength(0);
    failing = false;
    const res = await rerun(other);
    expect(res).toMatchObject({ status: 202, body: { run: 2 } });
    const again = await runWritten(other, 2);
    expect(again).toMatchObject({ status: 'completed', error: null });
    expect(comments(2)).toHaveLength(1);
    expect(comments(2)[0]!.body).toContain('RCA number');
  });

  it('a re-run whose job was never added (the process died half-way) gets it when asked again', async () => {
    const store = new InvestigationStore(admin, { dedupTtlSeconds: 3600, retentionSeconds: 3600 });
    const real = new Continuations(admin, { attempts: 1, backoffMs: 100, retentionSeconds: 3600 });
    // Dies between the record's change and the job: the first call throws where the job is added.
    let dead = true;
    const continuations = Object.assign(Object.create(real) as Continuations, {
      rerun: async (rid: string, run: number) => {
        if (dead) throw new Error('process died');
        return real.rerun(rid, run);
      },
    });
    try {
      await expect(rerunInvestigation({ redis: admin, store, continuations }, id)).rejects.toThrow('process died');
      expect(await getInvestigation(svc, id)).toMatchObject({ status: 'queued', run: 3 });
      dead = false;
      const res = await rerun(id);
      expect(res).toMatchObject({ status: 202, body: { run: 3, runId: `${id}-rerun-3` } });
      const done = await runWritten(id, 3);
      expect(done.rca).toMatch(/RCA number \d+/);
      expect(comments()).toHaveLength(1);
    } finally {
      await real.close();
    }
  });
});
