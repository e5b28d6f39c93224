import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_HEADING } from '../../src/render/compose-comment.js';
import { startPagerDutyDouble, type PagerDutyDouble, type PdIncident } from '../helpers/doubles/pagerduty-double.js';
import { getInvestigation, writtenBack } from '../helpers/investigations-api.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { getJson, startTestService, waitFor, type TestService } from '../helpers/service.js';
import { stopAll } from '../helpers/stop-all.js';
import { alertFromEvent, incidentEvent, noteEvent, signed } from '../fixtures/pagerduty/fixtures.js';

/**
 * PagerDuty → Lestrade → PagerDuty through the real service: signed V3 webhooks into the HTTP
 * route, intake on a real Redis, the loop against a scripted model, and the write-back job adding
 * a note on the PagerDuty double (which validates every request against PagerDuty's spec).
 */
const SECRET = 'e2e-pd-secret';
const FROM = 'lestrade@example.com';
let redis: TestRedis;
let pd: PagerDutyDouble;
let llm: ScriptedLlm;
let svc: TestService;
let incident: PdIncident;

beforeAll(async () => {
  redis = await startRedis();
  pd = await startPagerDutyDouble({ user: { name: 'Lestrade Bot', email: FROM } });
  incident = pd.addIncident({
    title: '[FIRING:2] HighRequestLatency prod',
    serviceId: 'PSVC001',
    priority: 'P1',
    alerts: [alertFromEvent('am-0.25-events-v2-firing.json')],
  });
  llm = await startScriptedLlm((req, call) => ({
    content: `## Root cause\nRCA ${call + 1}: ${/Title: (.*)/.exec(req.messages[1]!.content ?? '')?.[1]}`,
  }));
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-pd-e2e-'));
  writeFileSync(join(dir, 'lestrade.yaml'), 'writeBack: { backoffMs: 200 }\n');
  svc = await startTestService(redis.url, {
    OPENAI_API_KEY: 'sk-e2e',
    OPENAI_BASE_URL: llm.baseUrl,
    LESTRADE_CONFIG: join(dir, 'lestrade.yaml'),
    PAGERDUTY_API_KEY: pd.apiKey,
    PAGERDUTY_API_URL: pd.url,
    PAGERDUTY_FROM_EMAIL: FROM,
    PAGERDUTY_WEBHOOK_SECRET: `${SECRET}, previous-secret`,
  });
}, 60_000);

afterAll(async () => {
  await stopAll(svc, llm, pd, redis);
  expect(pd.violations).toEqual([]);
  expect(pd.responseViolations).toEqual([]);
});

async function post(payload: unknown, opts: { secrets?: string[]; webhookId?: string } = {}) {
  const s = signed(payload, opts.secrets ?? [SECRET], opts.webhookId);
  const res = await fetch(`${svc.base}/webhooks/pagerduty`, { method: 'POST', headers: s.headers, body: s.body });
  return { status: res.status, body: await res.json(), webhookId: s.headers['x-webhook-id'] };
}
const list = async () => (await getJson(`${svc.base}/api/investigations`)).body.items as Array<{ id: string }>;
const get = (id: string) => getInvestigation(svc, id);
const written = (id: string) => writtenBack(svc, id, 30_000);
const notePosts = () => pd.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/notes'));

describe('PagerDuty incident → investigation → one note', () => {
  let firstDelivery = '';

  it('a signed incident.triggered is investigated with its alerts, and the RCA added as one note by the From user', async () => {
    const r = await post(incidentEvent('incident.triggered', incident));
    expect(r.status).toBe(200);
    expect(r.body.queued).toHaveLength(1);
    firstDelivery = r.webhookId;
    const inv = await written(r.body.queued[0]);
    expect(inv.issue).toMatchObject({
      source: 'pagerduty',
      identity: incident.id,
      severity: 'critical',
      locator: { key: incident.id },
    });
    expect(inv.issue.annotations.runbook_url).toBe('https://runbooks.example.com/HighRequestLatency');
    expect(llm.requests[0]!.messages[1]!.content).toContain(' - instance = checkout-a1b2:8080');
    const notes = pd.notes(incident.id);
    expect(notes).toHaveLength(1);
    expect(notePosts()[0]!.headers.from).toBe(FROM);
    expect(notes[0]!.content).toContain(COMMENT_HEADING);
    // The sanitizer escapes the model's brackets (Markdown); the note keeps them readable as text.
    expect(notes[0]!.content).toContain('## Root cause\nRCA 1: \\[FIRING:2\\] HighRequestLatency prod');
    expect(inv.writeBacks).toEqual([
      expect.objectContaining({
        status: 'written',
        target: incident.id,
        commentId: notes[0]!.id,
        url: `https://acme.pagerduty.com/incidents/${incident.id}`,
      }),
    ]);
  });

  it('our note, echoed back as incident.annotated, starts nothing', async () => {
    const r = await post(noteEvent(incident.id, pd.notes(incident.id)[0]!.content));
    expect(r.body).toMatchObject({ ignored: `note on ${incident.id} is our own (it carries our marker)`, queued: [] });
    expect(await list()).toHaveLength(1);
  });

  it('a replayed X-Webhook-Id, a bad signature and a repeat of the incident start nothing; a rotated secret is accepted', async () => {
    const replay = await post(incidentEvent('incident.triggered', incident), { webhookId: firstDelivery });
    expect(replay).toMatchObject({ status: 200, body: { ignored: 'delivery already handled' } });
    const forged = await post(incidentEvent('incident.triggered', incident), { secrets: ['guessed'] });
    expect(forged).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
    const again = await post(incidentEvent('incident.triggered', incident), {
      secrets: ['guessed', 'previous-secret'],
    });
    expect(again.body).toMatchObject({ queued: [], duplicates: [expect.any(String)] });
    const low = pd.addIncident({ title: 'low urgency', serviceId: 'PSVC001', urgency: 'low' });
    expect((await post(incidentEvent('incident.triggered', low))).body).toMatchObject({
      ignored: `${low.id}: urgency low is not in sources.pagerduty.triggers.urgencies`,
    });
    expect(await list()).toHaveLength(1);
    expect(pd.notes(incident.id)).toHaveLength(1);
  });

  it('PagerDuty answering 429 to the note leaves the write-back pending with the error; it is written after ratelimit-reset', async () => {
    const second = pd.addIncident({ title: 'Disk full on db-1', serviceId: 'PSVC001' });
    pd.faults.add({
      method: 'POST',
      path: new RegExp(`/incidents/${second.id}/notes$`),
      kind: 'status',
      status: 429,
      headers: { 'ratelimit-reset': '1' },
      body: { error: { message: 'Rate Limit Exceeded', code: 2020 } },
    });
    const r = await post(incidentEvent('incident.triggered', second));
    const id = r.body.queued[0] as string;
    const pending = await waitFor(
      'a pending write-back with the error',
      async () => {
        const wb = (await get(id)).writeBacks?.[0];
        return wb?.status === 'pending' && wb.error && wb;
      },
      30_000,
    );
    expect(pending.error).toBe(`PagerDuty answered HTTP 429: add note to ${second.id}: Rate Limit Exceeded`);
    expect(pd.notes(second.id)).toHaveLength(0);
    const inv = await written(id);
    expect(inv.writeBacks[0].attempts).toBeGreaterThanOrEqual(2);
    expect(pd.notes(second.id)).toHaveLength(1);
    expect(pd.faults.pending).toHaveLength(0);
  }, 40_000);

  it('incident.resolved marks the investigation resolved', async () => {
    const r = await post(incidentEvent('incident.resolved', incident));
    expect(r.body.resolved).toHaveLength(1);
    expect((await get(r.body.resolved[0])).issueStatus).toBe('resolved');
  });
});

describe('PagerDuty off', () => {
  it('POST /webhooks/pagerduty answers 404 with the reason', async () => {
    const off = await startTestService(redis.url, { PAGERDUTY_WEBHOOK_SECRET: SECRET }, { workers: false });
    try {
      const s = signed(incidentEvent('incident.triggered', incident), [SECRET]);
      const res = await fetch(`${off.base}/webhooks/pagerduty`, { method: 'POST', headers: s.headers, body: s.body });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: 'source pagerduty is off: no PAGERDUTY_API_KEY' });
    } finally {
      await off.close();
    }
  });
});
