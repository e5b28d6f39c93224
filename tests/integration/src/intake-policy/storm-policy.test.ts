import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { QUEUE_NAME, QUEUE_PREFIX } from '../../../../src/redis/queue-names.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { startScriptedLlm, type Reply, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { getJson, jobsDispatched, startTestService, waitFor, type TestService } from '../../../helpers/service.js';

/** Priorities, skip rules, resolved-while-queued, group follow-ups, budgets and cost, on the real service. */
let redis: TestRedis;
let admin: Redis;
let queue: Queue;
let llm: ScriptedLlm | undefined;
const services: TestService[] = [];
/** The service's clock: real time plus what the test moved it by. */
let offsetMs = 0;
const clock = () => Date.now() + offsetMs;

interface AlertSpec {
  name: string;
  severity?: string;
  fp: number;
  labels?: Record<string, string>;
  status?: 'firing' | 'resolved';
}
function payload(alerts: AlertSpec[], groupKey = '{}:{alertname="Mixed"}') {
  return {
    version: '4',
    groupKey,
    truncatedAlerts: 0,
    receiver: 'bot',
    status: 'firing',
    externalURL: 'http://am',
    groupLabels: { alertname: 'Mixed' },
    commonLabels: {},
    commonAnnotations: {},
    alerts: alerts.map((a) => ({
      status: a.status ?? 'firing',
      labels: { alertname: a.name, severity: a.severity ?? 'warning', namespace: 'prod', ...a.labels },
      annotations: { summary: `${a.name} ${a.fp}` },
      startsAt: '2026-11-30T08:00:00.000Z',
      endsAt: '0001-01-01T00:00:00Z',
      generatorURL: '',
      fingerprint: a.fp.toString(16).padStart(16, '0'),
    })),
  };
}
async function post(svc: TestService, body: unknown) {
  const res = await fetch(`${svc.base}/webhooks/alertmanager`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.json();
}
function configFile(yaml: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'lestrade-policy-')), 'lestrade.yaml');
  writeFileSync(path, yaml);
  return path;
}
/** The service, with an LLM (answering from `script`) or without (nothing runs; work stays queued). */
async function serve(
  opts: {
    script?: Reply[] | ((req: unknown, call: number) => Reply);
    yaml?: string;
    env?: Record<string, string>;
  } = {},
) {
  const env: Record<string, string> = { LOG_LEVEL: 'warn', LESTRADE_CONCURRENCY: '1', ...opts.env };
  if (opts.yaml) env.LESTRADE_CONFIG = configFile(opts.yaml);
  if (opts.script) {
    llm = await startScriptedLlm(opts.script);
    Object.assign(env, { OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: llm.baseUrl, LESTRADE_MODEL: 'scripted' });
  }
  const svc = await startTestService(redis.url, env, { clock });
  services.push(svc);
  return svc;
}
const inv = async (svc: TestService, id: string) => (await getJson(`${svc.base}/api/investigations/${id}`)).body;
const until = (svc: TestService, id: string, what: (i: Record<string, any>) => boolean, label: string) =>
  waitFor(
    label,
    async () => {
      const i = await inv(svc, id);
      return what(i) && i;
    },
    20_000,
  );
const firstPrompts = () =>
  (llm?.requests ?? [])
    .filter((r) => !r.messages.some((m) => m.role === 'tool'))
    .map((r) => r.messages.find((m) => m.role === 'user')?.content ?? '');

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
  queue = new Queue(QUEUE_NAME, {
    connection: new Redis(redis.url, { maxRetriesPerRequest: null }),
    prefix: QUEUE_PREFIX,
  });
});
afterAll(async () => {
  await queue.close();
  admin.disconnect();
  await redis.stop();
});
beforeEach(async () => {
  await admin.flushall();
  offsetMs = 0;
});
afterEach(async () => {
  for (const s of services.splice(0)) await s.close();
  await llm?.close();
  llm = undefined;
});

describe('priorities', () => {
  it("runs critical before high before warning before unknown, whatever the order they arrived in, past BullMQ's window", async () => {
    // BullMQ holds two jobs waiting; the rest of the storm waits in the dispatch set, by priority.
    const yaml = 'queue: { dispatchWindow: 2 }\n';
    const idle = await serve({ yaml });
    const out = await post(
      idle,
      payload([
        { name: 'Warn', fp: 1 },
        { name: 'Unknown', severity: 'whatever', fp: 2 },
        { name: 'Crit', severity: 'critical', fp: 3 },
        { name: 'High', severity: 'error', fp: 4 },
      ]),
    );
    await waitFor('the window to fill', async () => (await queue.getJobCountByTypes('prioritized')) === 2);
    expect((await queue.getJobs(['prioritized'])).map((j) => j.id).sort()).toEqual(
      [out.queued[2], out.queued[3]].sort(),
    );
    expect((await getJson(`${idle.base}/readyz`)).body.queue).toMatchObject({ waiting: 4 });
    await idle.close();
    const svc = await serve({ yaml, script: () => ({ content: 'done' }) });
    await waitFor('four investigations', async () => firstPrompts().length === 4);
    expect(firstPrompts().map((p) => /alertname=(\w+)/.exec(p)?.[1])).toEqual(['Crit', 'High', 'Warn', 'Unknown']);
    const items = (await getJson(`${svc.base}/api/investigations`)).body.items as Array<{ id: string; title: string }>;
    expect((await inv(svc, items.find((i) => i.title === 'Warn: Warn 1')!.id)).priority).toBe(3);
  });

  it("takes a source's own priorities from intake.prioritiesBySource", async () => {
    const svc = await serve({ yaml: 'intake: { prioritiesBySource: { alertmanager: { warning: 1 } } }\n' });
    const { queued } = await post(svc, payload([{ name: 'Warn', fp: 5 }]));
    expect((await inv(svc, queued[0])).priority).toBe(1);
    await jobsDispatched(admin);
    expect((await queue.getJob(queued[0]))!.opts.priority).toBe(1);
  });
});

describe('skip rules', () => {
  it('records matching alerts as skipped with the rule, queues no job for them, and knows their repeats', async () => {
    const svc = await serve({
      yaml: 'intake: { skip: [ { name: heartbeat, matchers: [\'alertname=~"Watchdog|InfoInhibitor"\'] }, { name: dev, matchers: [\'namespace=~"dev-.*"\', \'severity!="critical"\'] } ] }\n',
    });
    const body = payload([
      { name: 'Watchdog', severity: 'none', fp: 10 },
      { name: 'Real', fp: 11 },
      { name: 'DevNoise', fp: 12, labels: { namespace: 'dev-7' } },
      { name: 'DevFire', severity: 'critical', fp: 13, labels: { namespace: 'dev-7' } },
    ]);
    const out = await post(svc, body);
    expect(out.queued).toHaveLength(2);
    expect(out.skipped).toEqual([
      { id: expect.any(String), rule: 'heartbeat' },
      { id: expect.any(String), rule: 'dev' },
    ]);
    const watchdog = await inv(svc, out.skipped[0].id);
    expect(watchdog).toMatchObject({
      status: 'skipped',
      skippedBy: 'heartbeat',
      skipReason: 'matched skip rule heartbeat',
      finishedAt: expect.any(String),
    });
    await jobsDispatched(admin);
    expect(await queue.getJob(out.skipped[0].id)).toBeUndefined();
    expect((await queue.getJobs(['prioritized', 'waiting'])).map((j) => j.id).sort()).toEqual([...out.queued].sort());
    const again = await post(svc, body);
    expect(again.queued).toEqual([]);
    expect(again.duplicates).toHaveLength(4);
  });

  it('skips severity=info and Watchdog by default', async () => {
    const svc = await serve();
    const out = await post(
      svc,
      payload([
        { name: 'Chatty', severity: 'info', fp: 20 },
        { name: 'InfoInhibitor', severity: 'none', fp: 21 },
      ]),
    );
    expect(out.skipped.map((s: { rule: string }) => s.rule)).toEqual(['severity-info', 'heartbeat']);
    expect(out.queued).toEqual([]);
  });
});

describe('an issue resolved while its investigation is queued', () => {
  it('is not investigated, and the record says why', async () => {
    const idle = await serve();
    const { queued } = await post(
      idle,
      payload([
        { name: 'Flap', fp: 30 },
        { name: 'Stays', fp: 31 },
      ]),
    );
    const { resolved } = await post(idle, payload([{ name: 'Flap', fp: 30, status: 'resolved' }]));
    expect(resolved).toEqual([queued[0]]);
    await idle.close();
    const svc = await serve({ script: () => ({ content: 'done' }) });
    const skipped = await until(svc, queued[0], (i) => i.status === 'skipped', 'the resolved one to be skipped');
    expect(skipped).toMatchObject({
      skipReason: 'its issue resolved before the investigation started',
      issueStatus: 'resolved',
    });
    await until(svc, queued[1], (i) => i.status === 'completed', 'the other to complete');
    expect(firstPrompts()).toHaveLength(1);
    expect(firstPrompts()[0]).toContain('alertname=Stays');
  });

  it('is investigated all the same with intake.skipResolvedWhileQueued off', async () => {
    const idle = await serve({ env: { LESTRADE_SKIP_RESOLVED_WHILE_QUEUED: 'false' } });
    const { queued } = await post(idle, payload([{ name: 'Flap', fp: 32 }]));
    await post(idle, payload([{ name: 'Flap', fp: 32, status: 'resolved' }]));
    await idle.close();
    const svc = await serve({
      script: () => ({ content: 'done' }),
      env: { LESTRADE_SKIP_RESOLVED_WHILE_QUEUED: 'false' },
    });
    await until(svc, queued[0], (i) => i.status === 'completed', 'the investigation to complete');
  });
});

describe('group follow-ups', () => {
  it("alerts arriving after the group's investigation started wait in one follow-up until the group is quiet", async () => {
    const yaml =
      'sources: { alertmanager: { investigateBy: group, groupQuietSeconds: 60 } }\nbudgets: { recheckSeconds: 0.2 }\n';
    const svc = await serve({ yaml, script: () => ({ content: 'done' }) });
    const group = (fps: number[]) =>
      payload(
        fps.map((fp) => ({ name: 'Rolling', fp, labels: { pod: `p${fp}` } })),
        '{}:{alertname="Rolling"}',
      );
    const first = await post(svc, group([40, 41]));
    expect(first.queued).toHaveLength(1);
    await until(svc, first.queued[0], (i) => i.status === 'completed', 'the first investigation');
    const second = await post(svc, group([40, 41, 42]));
    expect(second).toMatchObject({ queued: [expect.any(String)], duplicates: first.queued.concat(first.queued) });
    const followUp = second.queued[0];
    await until(svc, followUp, (i) => /quiet for 60 s/.test(i.waitingReason ?? ''), 'the follow-up to wait');
    const third = await post(svc, group([40, 41, 42, 43]));
    expect(third.joined).toEqual([followUp]);
    expect(firstPrompts()).toHaveLength(1);
    expect((await inv(svc, followUp)).followUpOf).toBe(first.queued[0]);
    offsetMs += 61_000; // the group has been quiet long enough
    const done = await until(svc, followUp, (i) => i.status === 'completed', 'the follow-up to run');
    expect(done.waitingReason).toBeNull();
    expect(done.issue.alerts.map((a: { labels: { pod: string } }) => a.labels.pod)).toEqual(['p42', 'p43']);
    expect(firstPrompts()[1]).toContain('group of 2 alerts');
  });
});

describe('budgets', () => {
  it('keeps work over the hourly budget queued with the reason, and runs it when the hour moves on', async () => {
    const svc = await serve({
      yaml: 'budgets: { investigationsPerHour: 2, recheckSeconds: 0.2 }\n',
      script: () => ({ content: 'done' }),
    });
    const { queued } = await post(
      svc,
      payload([
        { name: 'A', fp: 50 },
        { name: 'B', fp: 51 },
        { name: 'C', fp: 52 },
      ]),
    );
    await until(svc, queued[1], (i) => i.status === 'completed', 'two investigations');
    const held = await until(svc, queued[2], (i) => Boolean(i.waitingReason), 'the third to be held back');
    expect(held).toMatchObject({
      status: 'queued',
      waitingReason: expect.stringMatching(/^budget: 2 investigations per hour \(global\) reached; next start after /),
    });
    const ready = (await getJson(`${svc.base}/readyz`)).body;
    expect(ready.budgets).toEqual([{ scope: 'investigations per hour (global)', used: 2, limit: 2, reached: true }]);
    expect(ready.heldBack).toMatch(/budget reached: investigations per hour \(global\)/);
    expect((await getJson(`${svc.base}/api/usage`)).body.budgets[0]).toMatchObject({ used: 2, reached: true });
    expect(await queue.getJobState(queued[2])).toBe('delayed');
    expect(firstPrompts()).toHaveLength(2);
    offsetMs += 3_601_000;
    const ran = await until(svc, queued[2], (i) => i.status === 'completed', 'the third to run');
    expect(ran.waitingReason).toBeNull();
    expect(ran.attempts).toBe(1); // held back, not failed: no attempt used up
  });

  it("lets a critical alert through an hourly limit when configured, and holds work once the day's tokens are used", async () => {
    const yaml =
      'budgets: { perAlertnamePerHour: { Noisy: 1 }, criticalBypassesHourly: true, tokensPerDay: 300, recheckSeconds: 0.2 }\n';
    // Each investigation: one call of 100 prompt + 10 completion tokens.
    const svc = await serve({ yaml, script: () => ({ content: 'done' }) });
    const first = await post(svc, payload([{ name: 'Noisy', fp: 60 }]));
    await until(svc, first.queued[0], (i) => i.status === 'completed', 'the first Noisy (110 tokens)');
    const a = await post(
      svc,
      payload([
        { name: 'Noisy', fp: 61 },
        { name: 'Noisy', severity: 'critical', fp: 62 },
      ]),
    );
    await until(svc, a.queued[1], (i) => i.status === 'completed', 'the critical one despite the limit (220 tokens)');
    const noisy = await until(svc, a.queued[0], (i) => Boolean(i.waitingReason), 'the second warning Noisy to wait');
    expect(noisy.waitingReason).toMatch(/1 investigations per hour \(alertname Noisy\)/);
    const b = await post(svc, payload([{ name: 'Other', fp: 63 }]));
    await until(svc, b.queued[0], (i) => i.status === 'completed', 'a third investigation (330 tokens)');
    const c = await post(svc, payload([{ name: 'Other', fp: 64 }]));
    const tokens = await until(
      svc,
      c.queued[0],
      (i) => /tokens per day/.test(i.waitingReason ?? ''),
      "the day's tokens to run out",
    );
    expect(tokens.waitingReason).toMatch(/^budget: 300 LLM tokens per day used \(330\); waits for the next UTC day$/);
    expect(firstPrompts()).toHaveLength(3);
    offsetMs += 24 * 3_600_000;
    await until(svc, c.queued[0], (i) => i.status === 'completed', 'the next day');
    await until(svc, a.queued[0], (i) => i.status === 'completed', 'the next hour');
    expect(firstPrompts()).toHaveLength(5);
  });
});

describe('cost', () => {
  it('prices each investigation from the table and sums the day in the API', async () => {
    const yaml =
      'pricing: { currency: EUR, models: { scripted: { inputPerMillion: 1000, outputPerMillion: 2000 } } }\n';
    const svc = await serve({ yaml, script: () => ({ content: 'done', usage: { prompt: 100, completion: 10 } }) });
    const { queued } = await post(
      svc,
      payload([
        { name: 'A', fp: 70 },
        { name: 'B', fp: 71 },
      ]),
    );
    // The cost is counted just after the record completes.
    const done = await until(svc, queued[1], (i) => i.status === 'completed' && i.cost, 'both investigations');
    await until(svc, queued[0], (i) => i.status === 'completed' && i.cost, 'both investigations');
    expect(done.cost).toEqual({ amount: 0.12, currency: 'EUR', model: 'scripted' });
    const usage = (await getJson(`${svc.base}/api/usage?days=2`)).body;
    expect(usage.currency).toBe('EUR');
    expect(usage.days).toEqual([
      {
        date: new Date(clock()).toISOString().slice(0, 10),
        investigations: 2,
        followUps: 0,
        promptTokens: 200,
        completionTokens: 20,
        cost: 0.24,
        unpriced: 0,
      },
      {
        date: new Date(clock() - 86_400_000).toISOString().slice(0, 10),
        investigations: 0,
        followUps: 0,
        promptTokens: 0,
        completionTokens: 0,
        cost: 0,
        unpriced: 0,
      },
    ]);
  });

  it('says a model without a price costs an unknown amount, not 0, and names the setting that prices it', async () => {
    const svc = await serve({ yaml: '', script: () => ({ content: 'done', usage: { prompt: 100, completion: 10 } }) });
    const { queued } = await post(svc, payload([{ name: 'A', fp: 72 }]));
    const done = await until(svc, queued[0], (i) => i.status === 'completed' && i.cost, 'the investigation');
    expect(done.cost).toEqual({ amount: null, currency: 'USD', model: 'scripted' });
    const [today] = (await getJson(`${svc.base}/api/usage?days=1`)).body.days;
    expect(today).toMatchObject({ investigations: 1, promptTokens: 100, cost: null, unpriced: 1 });
    const page = await (await fetch(`${svc.base}/investigations/${queued[0]}`)).text();
    expect(page).toContain(
      'unknown: scripted has no price; set pricing.models.scripted (inputPerMillion, outputPerMillion)',
    );
    expect(page).not.toMatch(/<dd>0 USD/);
    const metrics = await (await fetch(`${svc.base}/metrics`)).text();
    expect(metrics).toMatch(/lestrade_llm_tokens_total\{model="scripted",kind="input"\} 100/);
    expect(metrics).not.toMatch(/lestrade_llm_cost_total\{/);
  });
});
