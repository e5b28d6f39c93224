import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushAlerts, startAlertmanager, type TestAlertmanager } from '../helpers/alertmanager.js';
import { freePort } from '../helpers/free-port.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { getJson, startTestService, waitFor, type TestService } from '../helpers/service.js';
import { stopAll } from '../helpers/stop-all.js';

/**
 * One investigation per problem: a real Alertmanager delivers a storm of 200 alerts in 5 groups
 * (group_by alertname, namespace) to a Lestrade with investigateBy: group; 5 investigations run,
 * and the model sees every alert of its group.
 */
const TOKEN = 'storm-token';
const GROUPS = [
  'KubePodCrashLooping',
  'KubePodNotReady',
  'KubeDeploymentReplicasMismatch',
  'TargetDown',
  'CPUThrottlingHigh',
];
const PER_GROUP = 40;
let redis: TestRedis;
let am: TestAlertmanager;
let llm: ScriptedLlm;
let svc: TestService;

beforeAll(async () => {
  redis = await startRedis();
  llm = await startScriptedLlm(() => ({ content: '## Root cause\nthe node ran out of memory' }));
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-storm-'));
  writeFileSync(join(dir, 'lestrade.yaml'), 'sources: { alertmanager: { investigateBy: group } }\n');
  svc = await startTestService(redis.url, {
    PORT: String(port),
    ALERTMANAGER_WEBHOOK_TOKEN: TOKEN,
    LESTRADE_CONFIG: join(dir, 'lestrade.yaml'),
    OPENAI_API_KEY: 'sk-x',
    OPENAI_BASE_URL: llm.baseUrl,
    LOG_LEVEL: 'warn',
  });
  // max_alerts 0: Alertmanager sends every alert of a group in one delivery. group_wait 2s: a group
  // notified before all its alerts arrived would rightly get a follow-up (tested in storm-policy.test.ts).
  am = await startAlertmanager({
    webhookUrl: `${svc.base}/webhooks/alertmanager`,
    token: TOKEN,
    maxAlerts: 0,
    repeatInterval: '1h',
    groupWait: '2s',
  });
});
afterAll(async () => {
  await stopAll(am, svc, llm, redis);
});

describe('an alert storm from a real Alertmanager, investigateBy: group', () => {
  it('200 alerts in 5 groups become 5 investigations, each prompt listing every alert of its group', async () => {
    // Now, not earlier: Alertmanager flushes a group at once, before group_wait, for an alert that
    // started longer than group_wait ago; the storm's alerts must all be in the group first.
    const startsAt = new Date().toISOString();
    await pushAlerts(
      am.url,
      GROUPS.flatMap((alertname) =>
        Array.from({ length: PER_GROUP }, (_, i) => ({
          labels: { alertname, namespace: 'prod', severity: 'warning', pod: `${alertname.toLowerCase()}-${i}` },
          annotations: { summary: `${alertname} on pod ${i}` },
          startsAt,
        })),
      ),
    );
    const items = await waitFor(
      '5 completed investigations',
      async () => {
        const list = (await getJson(`${svc.base}/api/investigations?limit=500`)).body.items as Array<{
          id: string;
          status: string;
          title: string;
        }>;
        if (list.length > 5) throw new Error(`more than 5: ${JSON.stringify(list)}`);
        return list.length === 5 && list.every((i) => i.status === 'completed') && list;
      },
      60_000,
    );
    expect(items.map((i) => i.title).sort()).toEqual(GROUPS.map((g) => `${g}: alert group {namespace=prod}`).sort());
    // Alertmanager resends nothing new: still 5 after its next group interval.
    await new Promise((r) => setTimeout(r, 1500));
    const later = (await getJson(`${svc.base}/api/investigations?limit=500`)).body.items;
    expect(later).toHaveLength(5);

    const prompts = llm.requests.map((r) => r.messages.find((m) => m.role === 'user')?.content ?? '');
    expect(prompts).toHaveLength(5);
    for (const alertname of GROUPS) {
      const prompt = prompts.find((p) => p.includes(`alertname=${alertname}`))!;
      expect(prompt).toContain(`group of ${PER_GROUP} alerts`);
      for (let i = 0; i < PER_GROUP; i++) expect(prompt).toContain(`pod=${alertname.toLowerCase()}-${i}`);
      // Shared labels are listed once, not per alert.
      expect(prompt.match(/^- namespace=prod$/gm)).toHaveLength(1);
      expect(prompt.match(/namespace=prod/g)).toHaveLength(2); // and in the group's title
    }
    const one = (await getJson(`${svc.base}/api/investigations/${items[0]!.id}`)).body;
    expect(one.issue.alerts).toHaveLength(PER_GROUP);
    expect(one.issue.labels).toMatchObject({ namespace: 'prod', severity: 'warning' });
    expect(Object.keys(one.issue.alerts[0].labels)).toEqual(['pod']);
    const admin = new Redis(redis.url);
    // Each alert's identity points at its group's investigation: a repeat is a duplicate of it.
    expect(await admin.zcard('{lestrade}:invs')).toBe(5);
    admin.disconnect();
  }, 90_000);
});
