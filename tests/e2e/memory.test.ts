import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceHarness } from '../helpers/service-harness.js';
import { startScriptedLlm, type ChatRequest } from '../helpers/scripted-llm.js';
import { getJson, startTestService, waitFor, type TestService } from '../helpers/service.js';

/**
 * Memory through the whole service (docs/memory.md): an incident investigated, a person's verdict on it, and
 * what the next incidents' prompts carry: the corrected root cause for a similar one, nothing for a novel one
 * or for the same alert name on an unrelated service (the verdict through the API, so through the service's
 * own FeedbackStore and its listener). With memory.reuseConfirmed, a confirmed repeat is
 * answered without any LLM request, until someone re-runs it.
 */
const h = serviceHarness();
const TOKEN = 'mem-token';

interface Alert {
  alertname: string;
  namespace: string;
  service: string;
  pod: string;
  fingerprint: string;
  startsAt?: string;
}

async function deliver(svc: TestService, a: Alert): Promise<string> {
  const labels = {
    alertname: a.alertname,
    namespace: a.namespace,
    service: a.service,
    pod: a.pod,
    severity: 'critical',
  };
  const body = {
    receiver: 'lestrade',
    status: 'firing',
    alerts: [
      {
        status: 'firing',
        labels,
        annotations: { summary: `${a.alertname} on ${a.namespace}/${a.pod}` },
        startsAt: a.startsAt ?? '2026-12-07T10:00:00Z',
        endsAt: '0001-01-01T00:00:00Z',
        generatorURL: 'http://prom.example/graph',
        fingerprint: a.fingerprint,
      },
    ],
    groupLabels: { alertname: a.alertname },
    commonLabels: labels,
    commonAnnotations: {},
    externalURL: 'http://am.example:9093',
    version: '4',
    groupKey: `{}:{alertname="${a.alertname}"}`,
    truncatedAlerts: 0,
  };
  const res = await fetch(`${svc.base}/webhooks/alertmanager`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
  });
  expect(res.status).toBe(200);
  const { queued } = (await res.json()) as { queued: string[] };
  expect(queued).toHaveLength(1);
  return queued[0]!;
}

const completed = (svc: TestService, id: string, run = 1) =>
  waitFor(
    `investigation ${id} completed (run ${run})`,
    async () => {
      const inv = (await getJson(`${svc.base}/api/investigations/${id}`)).body;
      return inv.status === 'completed' && (inv.run ?? 1) === run && inv;
    },
    30_000,
  );

/** The investigate prompt (the first user message) of the LLM request about `pod`. */
function promptAbout(requests: ChatRequest[], pod: string): string {
  const prompts = requests.map((r) => String(r.messages.find((m) => m.role === 'user')?.content ?? ''));
  const found = prompts.filter((p) => p.includes(`pod=${pod}`));
  expect(found).toHaveLength(1);
  return found[0]!;
}

/** A person's verdict through the API (POST /api/investigations/:id/feedback), as the CLI sends it. */
function feedbackFor(svc: TestService) {
  return async (id: string, verdict: 'correct' | 'wrong', user: string, rootCause?: string) => {
    const res = await fetch(`${svc.base}/api/investigations/${id}/feedback`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ verdict, ...(rootCause ? { rootCause } : {}), by: { via: 'cli', user } }),
    });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { changed: boolean }).changed).toBe(true);
  };
}

const CRASH = { alertname: 'KubePodCrashLooping', namespace: 'payments', service: 'checkout' };

describe('memory in investigations', () => {
  it("tells a similar incident's model the person's corrected root cause, and a novel or unrelated one nothing", async () => {
    h.llm = await startScriptedLlm(() => ({ content: '## Root cause\nThe network is flaky.' }));
    const env = { OPENAI_API_KEY: 'sk-mem', OPENAI_BASE_URL: h.llm.baseUrl, ALERTMANAGER_WEBHOOK_TOKEN: TOKEN };
    h.svc = await startTestService(h.redis.url, env);
    const svc = h.svc;
    const verdict = feedbackFor(svc);

    const first = await deliver(svc, { ...CRASH, pod: 'checkout-7d9f-a', fingerprint: 'a000000000000001' });
    expect((await completed(svc, first)).similar).toEqual([]);
    expect(promptAbout(h.llm.requests, 'checkout-7d9f-a')).not.toContain("Lestrade's memory");
    await verdict(first, 'wrong', 'alice', 'The node disk is full: kubelet evicts the pods.');

    const similar = await deliver(svc, { ...CRASH, pod: 'checkout-55cc-b', fingerprint: 'b000000000000002' });
    const inv = await completed(svc, similar);
    expect(inv.similar).toEqual([
      expect.objectContaining({
        id: first,
        verdict: 'wrong',
        rootCause: 'The node disk is full: kubelet evicts the pods.',
        rootCauseBy: 'person',
        confirmedBy: 'alice',
      }),
    ]);
    const prompt = promptAbout(h.llm.requests, 'checkout-55cc-b');
    const fence = /^<untrusted-([0-9a-f]{12})>$([\s\S]*?)^<\/untrusted-\1>$/m.exec(prompt)![2]!;
    expect(fence).toContain('Verdict: WRONG: its analysis was marked wrong by alice');
    expect(fence).toContain(
      "Root cause as a person stated it (the person's correction): The node disk is full: kubelet evicts the pods.",
    );
    expect(prompt).not.toContain('The network is flaky');
    expect(inv.reused).toBeNull();
    // The dashboard's page lists it, linked, with the person's correction said as such.
    const page = await (await fetch(`${svc.base}/investigations/${similar}`)).text();
    expect(page).toContain(`<a href="/investigations/${first}">`);
    expect(page).toContain('marked wrong</span> by alice');
    expect(page).toContain('Root cause, as a person stated it: The node disk is full: kubelet evicts the pods.');

    const novel = await deliver(svc, {
      alertname: 'CertificateExpiring',
      namespace: 'edge',
      service: 'gateway',
      pod: 'gateway-0',
      fingerprint: 'c000000000000003',
    });
    const unrelated = await deliver(svc, {
      ...CRASH,
      namespace: 'search',
      service: 'indexer',
      pod: 'indexer-0',
      fingerprint: 'd000000000000004',
    });
    for (const [id, pod] of [
      [novel, 'gateway-0'],
      [unrelated, 'indexer-0'],
    ] as const) {
      expect((await completed(svc, id)).similar).toEqual([]);
      const text = promptAbout(h.llm.requests, pod);
      expect(text).not.toMatch(/Lestrade's memory|past incident|Verdict:|kubelet evicts/);
    }
  }, 90_000);

  it('answers a confirmed repeat without any LLM request, says so, counts it, and a re-run runs the model', async () => {
    let allowed = 1;
    const unexpected: number[] = [];
    h.llm = await startScriptedLlm((_req, call) => {
      if (call >= allowed) unexpected.push(call);
      return {
        content: call === 0 ? '## Root cause\nDB_URL is not set in the deployment.' : '## Root cause\nA fresh look.',
      };
    });
    const dir = mkdtempSync(join(tmpdir(), 'lestrade-memory-'));
    writeFileSync(join(dir, 'lestrade.yaml'), 'memory:\n  reuseConfirmed: true\n  reuseWithinHours: 24\n');
    const env = {
      OPENAI_API_KEY: 'sk-mem',
      OPENAI_BASE_URL: h.llm.baseUrl,
      ALERTMANAGER_WEBHOOK_TOKEN: TOKEN,
      LESTRADE_CONFIG: join(dir, 'lestrade.yaml'),
      LESTRADE_PUBLIC_URL: 'https://lestrade.example',
    };
    h.svc = await startTestService(h.redis.url, env);
    const svc = h.svc;
    const verdict = feedbackFor(svc);

    const alert = { ...CRASH, pod: 'checkout-7d9f-a', fingerprint: 'e000000000000005' };
    const first = await deliver(svc, alert);
    await completed(svc, first);
    await verdict(first, 'correct', 'alice');

    // The same alert firing again (a new start): the same fingerprint, a new investigation.
    const repeat = await deliver(svc, { ...alert, startsAt: '2026-12-07T12:00:00Z' });
    const inv = await completed(svc, repeat);
    expect(h.llm.requests).toHaveLength(1);
    expect(unexpected).toEqual([]);
    expect(inv).toMatchObject({
      rca: '## Root cause\nDB_URL is not set in the deployment.',
      reused: { from: first },
      usage: { llmCalls: 0 },
      toolCalls: [],
    });
    expect(inv.similar[0]).toMatchObject({
      id: first,
      verdict: 'correct',
      confirmedBy: 'alice',
      sameFingerprint: true,
    });
    const metrics = await (await fetch(`${svc.base}/metrics`)).text();
    expect(metrics).toMatch(/^lestrade_memory_reused_total\{source="alertmanager"\} 1$/m);
    const page = await (await fetch(`${svc.base}/investigations/${repeat}`)).text();
    expect(page).toContain(`<a href="/investigations/${first}">`);
    expect(page).toContain('Reused: this RCA is that of');

    // One click: the dashboard's, Slack's and `lestrade rerun`'s re-run all take this route.
    allowed = 2;
    const rerun = await fetch(`${svc.base}/api/investigations/${repeat}/rerun`, { method: 'POST' });
    expect(rerun.status).toBe(202);
    const after = await completed(svc, repeat, 2);
    expect(after).toMatchObject({ rca: '## Root cause\nA fresh look.', reused: null });
    expect(h.llm.requests).toHaveLength(2);
    expect(unexpected).toEqual([]);
  }, 90_000);
});
