import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evalCommand } from '../../../../cli/eval/eval-command.js';
import { PLACEHOLDER_FACT, recordCommand } from '../../../../cli/eval/record-command.js';
import type { CaseResult } from '../../../../cli/eval/run-case.js';
import { loadConfig } from '../../../../src/config/load-config.js';
import { redactorFromConfig } from '../../../../src/config/secrets.js';
import { destinations } from '../../../../destinations/index.js';
import { sources } from '../../../../sources/index.js';
import { toolsets } from '../../../../toolsets/index.js';
import { answerFrom } from '../../../helpers/eval-model.js';
import { startPrometheus, type TestPrometheus } from '../../../helpers/prometheus.js';
import { startScriptedLlm, type Script } from '../../../helpers/scripted-llm.js';
import { getJson, startTestService, waitFor } from '../../../helpers/service.js';
import { serviceHarness } from '../../../helpers/service-harness.js';

const h = serviceHarness();
const TOKEN = 'am-token-7f3k2q9x';
const QUERY = 'up{job="prometheus"}';
const FACT = 'the Prometheus self-scrape is up';
let prom: TestPrometheus;

beforeAll(async () => {
  prom = await startPrometheus();
  await waitFor('a scrape', async () => (await getJson(`${prom.url}/api/v1/query?query=up`)).body.data.result.length);
}, 60_000);
afterAll(async () => {
  await prom?.stop();
});

/** Queries Prometheus once, then answers from what it returned, stating the fact. */
const model: Script = (req) =>
  req.messages.some((m) => m.role === 'tool')
    ? { content: answerFrom(req, [FACT]) }
    : { toolCalls: [{ name: 'prometheus_query', arguments: { query: QUERY } }] };

const alert = {
  version: '4',
  groupKey: '{}:{alertname="SelfScrape"}',
  truncatedAlerts: 0,
  status: 'firing',
  receiver: 'lestrade',
  groupLabels: { alertname: 'SelfScrape' },
  commonLabels: {},
  commonAnnotations: {},
  externalURL: 'http://alertmanager.example:9093',
  alerts: [
    {
      status: 'firing',
      labels: { alertname: 'SelfScrape', severity: 'warning' },
      annotations: { summary: 'Is Prometheus scraping itself?', description: `pasted by mistake: ${TOKEN}` },
      startsAt: '2026-03-14T09:00:00Z',
      endsAt: '0001-01-01T00:00:00Z',
      generatorURL: '',
      fingerprint: '0123456789abcdef',
    },
  ],
};

describe('lestrade eval record', () => {
  it('turns a completed investigation into a case that replays under eval (placeholder first, then the fact)', async () => {
    h.llm = await startScriptedLlm(model);
    const env = {
      ALERTMANAGER_WEBHOOK_TOKEN: TOKEN,
      OPENAI_BASE_URL: h.llm.baseUrl,
      OPENAI_API_KEY: 'sk-test',
      LESTRADE_MODEL: 'scripted',
      PROMETHEUS_URL: prom.url,
    };
    h.svc = await startTestService(h.redis.url, env);
    const res = await fetch(`${h.svc.base}/webhooks/alertmanager`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(alert),
    });
    expect(res.status).toBe(200);
    const base = h.svc.base;
    const id = await waitFor('a completed investigation', async () => {
      const list = (await getJson(`${base}/api/investigations`)).body as {
        items: Array<{ id: string; status: string }>;
      };
      return list.items.find((i) => i.status === 'completed')?.id;
    });
    const live = (await getJson(`${base}/api/investigations/${id}`)).body as { toolCalls: Array<{ output: string }> };

    const config = loadConfig(env, undefined, sources, destinations, toolsets);
    const dir = join(mkdtempSync(join(tmpdir(), 'lestrade-record-')), 'self_scrape');
    const toolsetOf = new Map([['prometheus_query', 'prometheus']]);
    const r = await recordCommand({ url: base }, id, dir, redactorFromConfig(config), toolsetOf);
    expect(r).toMatchObject({ folder: dir, skipped: 0 });
    expect(readdirSync(dir).sort()).toEqual([
      'issue.json',
      'prometheus_query_up_job_prometheus.txt',
      'rca.md',
      'test_case.yaml',
    ]);
    const mock = readFileSync(join(dir, r.mocks[0]!), 'utf8').split('\n');
    expect(JSON.parse(mock[0]!)).toEqual({
      toolset_name: 'prometheus',
      tool_name: 'prometheus_query',
      match_params: { query: QUERY },
    });
    expect(mock.slice(2).join('\n')).toBe(live.toolCalls[0]!.output);
    for (const f of readdirSync(dir)) expect(readFileSync(join(dir, f), 'utf8'), f).not.toContain(TOKEN);
    await expect(recordCommand({ url: base }, id, dir, (s) => s, toolsetOf)).rejects.toThrow(
      /already holds a test_case.yaml/,
    );

    const replay = async () => {
      const json = join(dir, '..', 'report.json');
      const code = await evalCommand([dir], { judge: 'contains', json }, config, { out: () => undefined, env: {} });
      return { code, result: (JSON.parse(readFileSync(json, 'utf8')) as { results: CaseResult[] }).results[0]! };
    };
    const first = await replay();
    expect(first.result).toMatchObject({ passed: false, reasons: [`missing fact: ${PLACEHOLDER_FACT}`] });
    writeFileSync(
      join(dir, 'test_case.yaml'),
      readFileSync(join(dir, 'test_case.yaml'), 'utf8').replace(PLACEHOLDER_FACT, FACT),
    );
    const second = await replay();
    expect(second.result).toMatchObject({ passed: true, toolCalls: 1, unmockedCalls: [], flags: [] });
    expect(existsSync(join(dir, 'rca.md'))).toBe(true);
  }, 90_000);

  it('redacts what the record holds, leaves out calls that never ran, and refuses an unfinished investigation', async () => {
    const record = (status: string) => ({
      id: 'inv-1',
      title: 'x',
      status,
      finishedAt: null,
      rca: `## Root cause\n- key ${TOKEN}`,
      issue: { ...alert, title: 'x', labels: {}, annotations: { note: TOKEN }, raw: { big: TOKEN } },
      toolCalls: [
        { name: 'kubectl_logs', params: { pod: TOKEN }, status: 'success', durationMs: 1, output: `token=${TOKEN}` },
        { name: 'kubectl_get', params: { kind: 'pods' }, status: 'error', durationMs: 1, error: 'forbidden' },
        { name: 'bash', params: { command: 'rm -rf /' }, status: 'denied', durationMs: 0, error: 'denied' },
      ],
    });
    let status = 'completed';
    const api = createServer((_req, res) => res.end(JSON.stringify(record(status))));
    await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    try {
      const redact = (s: string) => s.replaceAll(TOKEN, '[REDACTED]');
      const dir = join(mkdtempSync(join(tmpdir(), 'lestrade-record-')), 'c');
      const r = await recordCommand({ url }, 'inv-1', dir, redact, new Map([['kubectl_logs', 'kubernetes']]));
      expect(r.skipped).toBe(1);
      expect(r.mocks.sort()).toEqual(['kubectl_get_pods.txt', 'kubectl_logs_REDACTED.txt']);
      for (const f of readdirSync(dir)) expect(readFileSync(join(dir, f), 'utf8'), f).not.toContain(TOKEN);
      expect(JSON.parse(readFileSync(join(dir, 'issue.json'), 'utf8')).raw).toBeNull();
      const error = readFileSync(join(dir, 'kubectl_get_pods.txt'), 'utf8').split('\n');
      expect(JSON.parse(error[1]!)).toMatchObject({ status: 'error', error: 'forbidden' });
      status = 'running';
      const other = join(dir, '..', 'd');
      await expect(recordCommand({ url }, 'inv-1', other, redact, new Map())).rejects.toThrow(
        'investigation inv-1 is running: only a completed investigation can be recorded',
      );
      expect(existsSync(other)).toBe(false);
    } finally {
      api.close();
    }
  });
});
