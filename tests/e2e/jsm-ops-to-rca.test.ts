import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_ALERT_ID, jsmOpsFixtureText } from '../fixtures/jsm-ops/fixtures.js';
import { startJsmOpsDouble, type JsmOpsDouble } from '../helpers/doubles/jsm-ops-double.js';
import { listInvestigations as investigations, writtenBack } from '../helpers/investigations-api.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { stopAll } from '../helpers/stop-all.js';
import { postWebhook } from '../helpers/webhook-post.js';

/**
 * JSM Operations → Lestrade → JSM through the real service: a JSM Webhook integration's action
 * payloads with the header token, the cloudId looked up from the site, real Redis and workers, the
 * scripted model, and the RCA as one note on the alert.
 */
const TOKEN = 'e2e-jsm-token';

const deliver = (svc: TestService, text: string, headers: Record<string, string> = { 'x-lestrade-token': TOKEN }) =>
  postWebhook(svc, 'jsm-ops', text, headers);

describe('JSM Operations: webhook with the header token → investigation → exactly one alert note', () => {
  let redis: TestRedis;
  let jsm: JsmOpsDouble;
  let llm: ScriptedLlm;
  let svc: TestService;
  let off: TestService;
  let firstId = '';

  beforeAll(async () => {
    redis = await startRedis();
    jsm = await startJsmOpsDouble();
    jsm.addAlert({
      id: FIXTURE_ALERT_ID,
      tinyId: '77',
      message: '[FIRING:1] CheckoutHighErrorRate checkout prod',
      priority: 'P1',
    });
    llm = await startScriptedLlm(() => ({ content: '## Root cause\nA bad deploy of checkout v2.4.0.' }));
    svc = await startTestService(redis.url, {
      OPENAI_API_KEY: 'sk-e2e',
      OPENAI_BASE_URL: llm.baseUrl,
      JSM_OPS_SITE_URL: jsm.url,
      JSM_OPS_API_URL: jsm.url,
      JSM_OPS_EMAIL: jsm.email,
      JSM_OPS_API_TOKEN: jsm.apiToken,
      JSM_OPS_WEBHOOK_TOKEN: TOKEN,
    });
    off = await startTestService(
      redis.url,
      { JSM_OPS_SITE_URL: jsm.url, JSM_OPS_WEBHOOK_TOKEN: TOKEN },
      { workers: false },
    );
  }, 90_000);

  afterAll(async () => {
    await stopAll(off, svc, llm, jsm, redis);
  });

  it('a Create is investigated and answered with one note, under the cloudId looked up from the site', async () => {
    const res = await deliver(svc, jsmOpsFixtureText('create'));
    expect(res).toMatchObject({ status: 200, body: { queued: [expect.any(String)] } });
    firstId = res.body.queued[0];
    const inv = await writtenBack(svc, firstId, 40_000, 'the note written back');
    const notes = jsm.notes(FIXTURE_ALERT_ID);
    expect(notes).toHaveLength(1);
    expect(notes[0]!.note).toContain('A bad deploy of checkout v2.4.0.');
    expect(notes[0]!.note).toMatch(new RegExp(`\\nlestrade:rca:${FIXTURE_ALERT_ID} sha=[0-9a-f]{12}$`));
    expect(inv.writeBacks).toEqual([
      expect.objectContaining({
        status: 'written',
        commentId: notes[0]!.id,
        target: FIXTURE_ALERT_ID,
        url: `${jsm.url}/jira/ops/alerts/${FIXTURE_ALERT_ID}`,
      }),
    ]);
    expect(inv.issue).toMatchObject({
      source: 'jsm-ops',
      identity: FIXTURE_ALERT_ID,
      severity: 'critical',
      sourceInstance: new URL(jsm.url).host,
    });
    expect(inv.issue.raw.updatedAt).toBe('1718031599123000457');
    expect(jsm.requests.filter((r) => r.path === '/_edge/tenant_info')).toHaveLength(1);
    expect(jsm.violations).toEqual([]);
  }, 60_000);

  it('a missing or wrong token is 401 and starts nothing', async () => {
    expect((await deliver(svc, jsmOpsFixtureText('create'), {})).status).toBe(401);
    expect((await deliver(svc, jsmOpsFixtureText('create'), { 'x-lestrade-token': `${TOKEN}x` })).status).toBe(401);
    expect(await investigations(svc)).toHaveLength(1);
  });

  it('our own note, echoed back as AddNote by the account, starts nothing', async () => {
    const note = jsm.notes(FIXTURE_ALERT_ID)[0]!.note;
    const echo = jsmOpsFixtureText('addnote-human')
      .replace(/"note": "[^"]*"/, `"note": ${JSON.stringify(note)}`)
      .replace('alice@example.com', jsm.email);
    expect(JSON.parse(echo).alert).toMatchObject({ note, username: jsm.email });
    expect(await deliver(svc, echo)).toMatchObject({
      status: 200,
      body: { ignored: 'note on alert 77 is our own (it carries our marker)', queued: [] },
    });
    expect(await investigations(svc)).toHaveLength(1);
  });

  it('a replayed Create is a duplicate by alert id (no delivery id exists): nothing new, still one note', async () => {
    expect(await deliver(svc, jsmOpsFixtureText('create'))).toMatchObject({
      status: 200,
      body: { queued: [], duplicates: [firstId] },
    });
    expect(await investigations(svc)).toHaveLength(1);
    expect(jsm.notes(FIXTURE_ALERT_ID)).toHaveLength(1);
  });

  it('with JSM Operations off (no credentials), /webhooks/jsm-ops answers 404 saying why', async () => {
    expect(await deliver(off, jsmOpsFixtureText('create'))).toEqual({
      status: 404,
      body: { error: 'source jsm-ops is off: no JSM_OPS_EMAIL + JSM_OPS_API_TOKEN' },
    });
  });
});
