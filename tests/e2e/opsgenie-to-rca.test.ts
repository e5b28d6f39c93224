import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_ALERT_ID, opsgenieFixtureText } from '../fixtures/opsgenie/fixtures.js';
import { startOpsgenieDouble, type OpsgenieDouble } from '../helpers/doubles/opsgenie-double.js';
import { listInvestigations as investigations, writtenBack } from '../helpers/investigations-api.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { getJson, startTestService, type TestService } from '../helpers/service.js';
import { stopAll } from '../helpers/stop-all.js';
import { postWebhook } from '../helpers/webhook-post.js';

/**
 * OpsGenie → Lestrade → OpsGenie through the real service: webhook deliveries as OpsGenie's Webhook
 * integration sends them (raw bytes, so the nanosecond updatedAt is exact), real Redis queues and
 * workers, the scripted model, and the note written through the double's asynchronous API.
 */
const TOKEN = 'e2e-opsgenie-token';

function configFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'lestrade-og-e2e-')), 'lestrade.yaml');
  writeFileSync(path, 'sources:\n  opsgenie:\n    triggers: { priorities: [P1, P2] }\nwriteBack: { backoffMs: 500 }\n');
  return path;
}

const deliver = (svc: TestService, text: string, headers: Record<string, string> = { 'x-lestrade-token': TOKEN }) =>
  postWebhook(svc, 'opsgenie', text, headers);

describe('OpsGenie: webhook with the header token → investigation → exactly one alert note', () => {
  let redis: TestRedis;
  let og: OpsgenieDouble;
  let llm: ScriptedLlm;
  let svc: TestService;
  let off: TestService;
  let firstId = '';

  beforeAll(async () => {
    redis = await startRedis();
    // The first status poll answers "not processed yet": the write-back must come back for it.
    og = await startOpsgenieDouble({ processingPolls: 1 });
    og.addAlert({
      id: FIXTURE_ALERT_ID,
      tinyId: '1042',
      message: '[FIRING:1] CheckoutHighErrorRate checkout prod',
      priority: 'P1',
    });
    llm = await startScriptedLlm(() => ({ content: '## Root cause\nThe upstream connection pool is exhausted.' }));
    svc = await startTestService(redis.url, {
      OPENAI_API_KEY: 'sk-e2e',
      OPENAI_BASE_URL: llm.baseUrl,
      LESTRADE_CONFIG: configFile(),
      OPSGENIE_API_KEY: og.apiKey,
      OPSGENIE_API_URL: og.url,
      OPSGENIE_WEBHOOK_TOKEN: `old-token,${TOKEN}`,
    });
    off = await startTestService(redis.url, { OPSGENIE_WEBHOOK_TOKEN: TOKEN }, { workers: false });
  }, 90_000);

  afterAll(async () => {
    await stopAll(off, svc, llm, og, redis);
  });

  it('a Create is investigated and the RCA added as one note, counted written once OpsGenie processed the request', async () => {
    const res = await deliver(svc, opsgenieFixtureText('create'));
    expect(res).toMatchObject({ status: 200, body: { queued: [expect.any(String)], duplicates: [] } });
    firstId = res.body.queued[0];
    const inv = await writtenBack(svc, firstId, 40_000, 'the note written back');
    const notes = og.notes(FIXTURE_ALERT_ID);
    expect(notes).toHaveLength(1);
    expect(notes[0]!.note).toContain('The upstream connection pool is exhausted.');
    expect(notes[0]!.note).toMatch(new RegExp(`\\nlestrade:rca:${FIXTURE_ALERT_ID} sha=[0-9a-f]{12}$`));
    expect(notes[0]!.owner).toBe('Lestrade');
    expect(inv.writeBacks).toEqual([
      expect.objectContaining({ status: 'written', commentId: notes[0]!.offset, target: FIXTURE_ALERT_ID }),
    ]);
    expect(inv.writeBacks[0].attempts).toBeGreaterThanOrEqual(2);
    expect(inv.issue).toMatchObject({
      source: 'opsgenie',
      identity: FIXTURE_ALERT_ID,
      severity: 'critical',
      labels: { payments: 'true' },
      annotations: { namespace: 'prod' },
    });
    expect(inv.issue.raw.updatedAt).toBe('1718031599123000123');
    expect(og.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
    expect(og.violations).toEqual([]);
  }, 60_000);

  it('a missing or wrong token is 401 and starts nothing', async () => {
    expect((await deliver(svc, opsgenieFixtureText('create'), {})).status).toBe(401);
    expect((await deliver(svc, opsgenieFixtureText('create'), { 'x-lestrade-token': 'wrong' })).status).toBe(401);
    expect(await investigations(svc)).toHaveLength(1);
  });

  it('our own note, echoed back as AddNote, starts nothing', async () => {
    const note = og.notes(FIXTURE_ALERT_ID)[0]!.note;
    const echo = opsgenieFixtureText('addnote-human')
      .replace(/"note": "[^"]*"/, `"note": ${JSON.stringify(note)}`)
      .replace('alice@example.com', 'Lestrade');
    expect(JSON.parse(echo).alert).toMatchObject({ note, username: 'Lestrade' });
    const res = await deliver(svc, echo);
    expect(res).toMatchObject({
      status: 200,
      body: { ignored: 'note on alert 1042 is our own (it carries our marker)', queued: [] },
    });
    expect(await investigations(svc)).toHaveLength(1);
  });

  it('a replayed Create (OpsGenie sends no delivery id) is a duplicate by alert id: nothing new, still one note', async () => {
    const res = await deliver(svc, opsgenieFixtureText('create'));
    expect(res).toMatchObject({ status: 200, body: { queued: [], duplicates: [firstId] } });
    expect(await investigations(svc)).toHaveLength(1);
    expect(og.notes(FIXTURE_ALERT_ID)).toHaveLength(1);
  });

  it('a created alert outside triggers.priorities is ignored with the reason; Close marks the investigation resolved', async () => {
    const p3 = opsgenieFixtureText('create')
      .replace('"priority": "P1"', '"priority": "P3"')
      .replaceAll(FIXTURE_ALERT_ID, 'other-alert');
    expect(await deliver(svc, p3)).toMatchObject({
      status: 200,
      body: { ignored: 'alert 1042: priority P3 is not in triggers.priorities', queued: [] },
    });
    expect(await deliver(svc, opsgenieFixtureText('close'))).toMatchObject({
      status: 200,
      body: { resolved: [firstId] },
    });
    expect((await getJson(`${svc.base}/api/investigations/${firstId}`)).body.issueStatus).toBe('resolved');
    expect(await investigations(svc)).toHaveLength(1);
  });

  it('with OpsGenie off (no API key), /webhooks/opsgenie answers 404 saying why', async () => {
    expect(await deliver(off, opsgenieFixtureText('create'))).toEqual({
      status: 404,
      body: { error: 'source opsgenie is off: no OPSGENIE_API_KEY' },
    });
  });
});
