import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushAlerts, startAlertmanager, type TestAlertmanager } from '../../../helpers/alertmanager.js';
import { deliverOne, postJson, statusIs } from '../../../helpers/runtime.js';
import { startScriptedLlm, toolResults, type Script } from '../../../helpers/scripted-llm.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { startTestService } from '../../../helpers/service.js';

// Creating a silence through an investigation in `serve`: the model asks, the investigation pauses for a
// human, and only an approval through the API makes the silence in the real Alertmanager.

const h = serviceHarness();
let am: TestAlertmanager;

beforeAll(async () => {
  am = await startAlertmanager({ webhookUrl: 'http://127.0.0.1:9/unused', token: 't', groupWait: '30s' });
  await pushAlerts(am.url, [
    { labels: { alertname: 'DiskFull', namespace: 'db', severity: 'warning' }, annotations: { summary: 'disk 95%' } },
  ]);
}, 60_000);
afterAll(async () => {
  await am?.stop();
});

const silences = async () =>
  ((await (await fetch(`${am.url}/api/v2/silences`)).json()) as Array<{ comment: string; createdBy: string }>).filter(
    (s) => s.createdBy === 'lestrade',
  );

/** First turn: ask for a silence; then answer with what the tool said. */
const silenceScript =
  (comment: string): Script =>
  (req) => {
    const results = toolResults(req);
    if (results.length === 0) {
      const args = { matchers: ['alertname="DiskFull"', 'namespace="db"'], duration: '1h', comment };
      return { toolCalls: [{ id: 'c-silence', name: 'alertmanager_create_silence', arguments: args }] };
    }
    return { content: `## Root cause\nsilence: ${JSON.stringify(results[0]!.result)}` };
  };

async function pausedInvestigation(comment: string, fingerprint: string) {
  h.llm = await startScriptedLlm(silenceScript(comment));
  h.svc = await startTestService(h.redis.url, {
    OPENAI_API_KEY: 'sk-x',
    OPENAI_BASE_URL: h.llm.baseUrl,
    ALERTMANAGER_URL: am.url,
  });
  const id = await deliverOne(h.svc.base, fingerprint);
  const waiting = await statusIs(h.svc.base, id, ['awaiting_approval', 'completed', 'failed']);
  expect(waiting.status).toBe('awaiting_approval');
  expect(waiting.approvals.pending).toEqual([
    expect.objectContaining({
      toolCallId: 'c-silence',
      tool: 'alertmanager_create_silence',
      params: expect.objectContaining({ duration: '1h', comment }),
    }),
  ]);
  // The model was offered the toolset's tools and told how to use it.
  const first = h.llm.requests[0]!;
  expect(first.tools!.map((t) => t.function.name)).toEqual(
    expect.arrayContaining(['alertmanager_alerts', 'alertmanager_silences', 'alertmanager_create_silence']),
  );
  expect(first.messages[0]!.content).toMatch(/- alertmanager: [^\n]*\n {4}List alerts with matchers/);
  return { s: h.svc, id };
}

describe('a silence asked for in an investigation', () => {
  it('waits for a human, and exists in Alertmanager once approved through the API', async () => {
    const { s, id } = await pausedInvestigation('approved one', '00000000000000a1');
    expect((await silences()).filter((x) => x.comment.startsWith('approved one'))).toEqual([]);
    const res = await postJson(`${s.base}/api/investigations/${id}/approvals`, {
      decisions: [{ toolCallId: 'c-silence', approved: true }],
    });
    expect(res.status).toBe(202);
    const done = await statusIs(s.base, id, ['completed', 'failed']);
    expect(done.status).toBe('completed');
    const made = (await silences()).filter((x) => x.comment.startsWith('approved one'));
    expect(made).toEqual([expect.objectContaining({ createdBy: 'lestrade' })]);
    const result = toolResults(h.llm!.requests[1]!)[0]!.result;
    expect(result).toMatchObject({ status: 'success' });
  });

  it('makes no silence when the human denies it', async () => {
    const { s, id } = await pausedInvestigation('denied one', '00000000000000a2');
    await postJson(`${s.base}/api/investigations/${id}/approvals`, {
      decisions: [{ toolCallId: 'c-silence', approved: false, feedback: 'not now' }],
    });
    await statusIs(s.base, id, ['completed', 'failed']);
    expect((await silences()).filter((x) => x.comment.startsWith('denied one'))).toEqual([]);
    expect(toolResults(h.llm!.requests[1]!)[0]!.result).toMatchObject({ status: 'denied', feedback: 'not now' });
  });
});
