import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPagerDutyDouble, type PagerDutyDouble } from '../helpers/doubles/pagerduty-double.js';
import { getInvestigation, writtenBack } from '../helpers/investigations-api.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { startTestService, waitFor, type TestService } from '../helpers/service.js';
import { stopAll } from '../helpers/stop-all.js';
import { alertFromEvent, incidentEvent, loadFixture, signed } from '../fixtures/pagerduty/fixtures.js';

/**
 * One problem, one investigation. Alertmanager sends an alert to Lestrade's webhook and, through
 * its PagerDuty integration (0.30+, JSON details), to PagerDuty too. The PagerDuty incident's
 * `related` names that alert as our Alertmanager source knows it, so the engine links the
 * incident to the investigation already made: no second LLM run, and the note carries its RCA.
 */
const SECRET = 'e2e-pd-secret';
const AM_TOKEN = 'e2e-am-token';
const RCA = 'The payments-api upstream is saturated: its connection pool is at its limit.';
let redis: TestRedis;
let pd: PagerDutyDouble;
let llm: ScriptedLlm;
let svc: TestService;

beforeAll(async () => {
  redis = await startRedis();
  pd = await startPagerDutyDouble();
  llm = await startScriptedLlm(() => ({ content: `## Root cause\n${RCA}` }));
  svc = await startTestService(redis.url, {
    OPENAI_API_KEY: 'sk-e2e',
    OPENAI_BASE_URL: llm.baseUrl,
    ALERTMANAGER_WEBHOOK_TOKEN: AM_TOKEN,
    PAGERDUTY_API_KEY: pd.apiKey,
    PAGERDUTY_API_URL: pd.url,
    PAGERDUTY_FROM_EMAIL: 'lestrade@example.com',
    PAGERDUTY_WEBHOOK_SECRET: SECRET,
  });
}, 60_000);

afterAll(async () => {
  await stopAll(svc, llm, pd, redis);
  expect(pd.violations).toEqual([]);
});

const get = (id: string) => getInvestigation(svc, id);

describe('Alertmanager first, then the PagerDuty incident made from the same alert', () => {
  it('links the incident to the Alertmanager investigation: one LLM investigation in all, the note carries its RCA', async () => {
    // The group as both receivers saw it, narrowed to its first alert (captured from Alertmanager 0.25; see the fixtures' README).
    const delivery = loadFixture('am-0.25-webhook-firing.json').body;
    const amRes = await fetch(`${svc.base}/webhooks/alertmanager`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${AM_TOKEN}` },
      body: JSON.stringify({ ...delivery, alerts: delivery.alerts.slice(0, 1) }),
    });
    const [amId] = (await amRes.json()).queued as string[];
    await waitFor('the Alertmanager investigation', async () => (await get(amId!)).status === 'completed', 30_000);
    expect(llm.requests).toHaveLength(1);

    const details = alertFromEvent('am-0.30-events-v2-firing.json').details as { firing: unknown[] };
    const incident = pd.addIncident({
      title: '[FIRING:1] HighRequestLatency prod (500 checkout-7d9f:8080 checkout critical)',
      serviceId: 'PSVC001',
      alerts: [
        {
          summary: '[FIRING:1] HighRequestLatency prod',
          details: { firing: details.firing.slice(0, 1), resolved: [], num_firing: 1, num_resolved: 0 },
        },
      ],
    });
    const s = signed(incidentEvent('incident.triggered', incident), [SECRET]);
    const pdRes = await (
      await fetch(`${svc.base}/webhooks/pagerduty`, { method: 'POST', headers: s.headers, body: s.body })
    ).json();
    expect(pdRes).toMatchObject({ queued: [], duplicates: [], linked: [expect.any(String)] });
    const pdId = pdRes.linked[0] as string;

    const linked = await writtenBack(svc, pdId, 30_000, "the incident's note");
    expect(linked).toMatchObject({
      status: 'linked',
      linkedTo: [amId],
      issue: { related: [{ source: 'alertmanager', identity: (await get(amId!)).issue.identity }] },
    });
    expect((await get(amId!)).linkedFrom).toEqual([pdId]);
    expect(llm.requests).toHaveLength(1);
    const notes = pd.notes(incident.id);
    expect(notes).toHaveLength(1);
    expect(notes[0]!.content).toContain(RCA);
    expect(notes[0]!.content).toContain(amId);
    expect(linked.writeBacks[0]).toMatchObject({ commentId: notes[0]!.id, target: incident.id });
  }, 60_000);
});
