import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ServiceHarness } from './service-harness.js';
import { startScriptedLlm } from './scripted-llm.js';
import { getJson, startTestService, waitFor, type TestService } from './service.js';

/** A finished Alertmanager alert of a test: name, fingerprint number, group, status. */
export interface AmAlert {
  name: string;
  fp: number;
  status?: 'firing' | 'resolved';
  labels?: Record<string, string>;
}

/** An Alertmanager webhook (v4) delivery of one group. */
export function amDelivery(alerts: AmAlert[], group = 'G1') {
  return {
    version: '4',
    groupKey: `{}:{alertname="${group}"}`,
    truncatedAlerts: 0,
    receiver: 'lestrade',
    status: alerts.every((a) => a.status === 'resolved') ? 'resolved' : 'firing',
    externalURL: 'http://am.example:9093',
    groupLabels: { alertname: group },
    commonLabels: {},
    commonAnnotations: {},
    alerts: alerts.map((a) => ({
      status: a.status ?? 'firing',
      labels: { alertname: a.name, severity: 'critical', namespace: 'prod', pod: `pod-${a.fp}`, ...a.labels },
      annotations: { summary: `${a.name} on pod-${a.fp}` },
      startsAt: '2026-12-01T08:00:00.000Z',
      endsAt: a.status === 'resolved' ? '2026-12-01T09:00:00.000Z' : '0001-01-01T00:00:00Z',
      generatorURL: 'http://prometheus.example:9090/graph',
      fingerprint: a.fp.toString(16).padStart(16, '0'),
    })),
  };
}

export async function postAlertmanager(svc: TestService, body: unknown): Promise<Record<string, any>> {
  const res = await fetch(`${svc.base}/webhooks/alertmanager`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, any>;
}

/** The model's RCA in tests: a mass mention, a user mention, a link to a host nobody named, one to Prometheus. */
export const HOSTILE_RCA = [
  '## Root cause',
  'The pod ran out of memory. <!channel> @here ping <@U0ADMIN> and <!subteam^S0OPS|ops>; see [dashboard](http://prometheus.example:9090/graph) and [exfil](https://evil.example/x?d=secret).',
  '',
  '## Fix',
  '- raise the limit to 512Mi',
  '- `kubectl rollout restart deploy/api` & watch',
].join('\n');

/** Starts the service with a scripted model answering `rca`, the given env and YAML, fast write-back retries. */
export async function serveWithDestinations(
  h: ServiceHarness,
  env: Record<string, string>,
  yaml = '',
): Promise<TestService> {
  h.llm = await startScriptedLlm(() => ({ content: HOSTILE_RCA }));
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-dest-'));
  writeFileSync(join(dir, 'lestrade.yaml'), `writeBack: { backoffMs: 200, attempts: 8 }\n${yaml}`);
  h.svc = await startTestService(h.redis.url, {
    OPENAI_API_KEY: 'sk-x',
    OPENAI_BASE_URL: h.llm.baseUrl,
    LESTRADE_MODEL: 'scripted',
    LOG_LEVEL: 'warn',
    LESTRADE_CONFIG: join(dir, 'lestrade.yaml'),
    LESTRADE_PUBLIC_URL: 'https://lestrade.example',
    ...env,
  });
  return h.svc;
}

/** Waits until the investigation's write-back to `destination` is final, and returns the record. */
export async function finalWriteBack(
  svc: TestService,
  id: string,
  destination: string,
  timeoutMs = 20_000,
): Promise<Record<string, any>> {
  return waitFor(
    `the ${destination} write-back of ${id}`,
    async () => {
      const inv = (await getJson(`${svc.base}/api/investigations/${id}`)).body;
      const wb = (inv.writeBacks as Array<Record<string, any>>).find((w) => w.destination === destination);
      return wb && wb.status !== 'pending' && wb;
    },
    timeoutMs,
  );
}

export async function listInvestigations(svc: TestService): Promise<Array<Record<string, any>>> {
  return (await getJson(`${svc.base}/api/investigations?limit=500`)).body.items;
}
