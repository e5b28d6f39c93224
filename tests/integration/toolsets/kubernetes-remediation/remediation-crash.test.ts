/**
 * An approved remediation applied exactly once across a worker killed at each step. Mid-write: the Kubernetes API
 * double applies the approved PATCH and never answers it, the worker is killed while it waits. At the engine's
 * crash points (src/crash-point.ts, LESTRADE_TEST_CRASH_AT): the worker kills itself after the approval and before
 * the intent is logged, after the intent and before the write, after the write and before its result is logged,
 * after the result and before the `remediation[]` entry. Each time the worker that takes the job over (a stalled
 * BullMQ job) resumes the paused run from its checkpoint, and the case ends with one applied write counted by the
 * double and one `remediation[]` entry carrying its approver.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { amFixture } from '../../../helpers/fixtures.js';
import { startKubernetesApiDouble, type KubernetesApiDouble } from '../../../helpers/doubles/kubernetes-api-double.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { requireBinary } from '../../../helpers/require-binary.js';
import { startScriptedLlm, toolResults, type ScriptedLlm } from '../../../helpers/scripted-llm.js';
import { killAll, spawnLestradeWorker } from '../../../helpers/child-process.js';
import { getJson, startTestService, waitFor, type TestService } from '../../../helpers/service.js';

let redis: TestRedis;
let llm: ScriptedLlm;
let http: TestService;
let k8s: KubernetesApiDouble;
const children: ChildProcess[] = [];
const SCALE = { kind: 'deployment', namespace: 'shop', name: 'web', replicas: 5 };
const WEB = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { replicas: 3, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [] } } },
};
let holdNext = false;
let config = '';

beforeAll(async () => {
  requireBinary('kubectl');
  redis = await startRedis();
  k8s = await startKubernetesApiDouble(
    [structuredClone(WEB)],
    // With holdNext, the next applied write is applied and never answered: its worker dies waiting.
    { writable: true, hold: (w) => !w.dryRun && holdNext && !(holdNext = false) },
  );
  llm = await startScriptedLlm((req) => {
    const results = toolResults(req);
    if (results.length === 0) return { toolCalls: [{ id: 'c-scale', name: 'kubectl_scale', arguments: SCALE }] };
    return { content: `after scale: ${String(results[0]!.result.status)} ${String(results[0]!.result.data)}` };
  });
  http = await startTestService(redis.url, {}, { workers: false });
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-remediation-'));
  config = join(dir, 'lestrade.yaml');
  writeFileSync(
    config,
    [
      'queue: { lockDurationMs: 1500, stalledIntervalMs: 1000 }',
      'toolsets:',
      '  kubernetes_remediation:',
      // Every case scales the same deployment in turn: an applied scale must not hold it for the next case's
      // proposal (by default it stays held for the verification window: remediation-rails.test.ts tests that).
      `    { enabled: true, context: double, kubeconfig: ${JSON.stringify(k8s.kubeconfig)}, namespaces: [shop], holdAfterApplySeconds: 0 }`,
    ].join('\n'),
  );
});
// Each case starts from the deployment as it was, with no write counted and no worker left running.
beforeEach(async () => {
  await killAll(children.splice(0));
  k8s.objects[0] = structuredClone(WEB);
  k8s.writes.length = 0;
});
afterAll(async () => {
  await killAll(children);
  await http?.close();
  await llm?.close();
  await k8s?.stop();
  await redis?.stop();
});

function startWorker(crashAt?: string): ChildProcess {
  const child = spawnLestradeWorker({
    HOME: k8s.env.HOME,
    REDIS_URL: redis.url,
    OPENAI_BASE_URL: llm.baseUrl,
    LESTRADE_CONFIG: config,
    LESTRADE_TEST_CRASH_AT: crashAt,
  });
  children.push(child);
  return child;
}

const applied = () => k8s.writes.filter((w) => !w.dryRun);

let alerts = 0;

/** A new alert (its own fingerprint and group), investigated up to the scale's approval: the investigation's id. */
async function proposeScale(): Promise<string> {
  alerts += 1;
  const fixture = amFixture('group-next').body;
  const first = fixture.alerts[0] as { labels: Record<string, string> };
  const alert = {
    ...first,
    labels: { ...first.labels, pod: `web-${alerts}` },
    fingerprint: `c0ffee${String(alerts).padStart(10, '0')}`,
  };
  const body = { ...fixture, groupKey: `{}:{case="${alerts}"}`, alerts: [alert] };
  const { queued } = await (
    await fetch(`${http.base}/webhooks/alertmanager`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  ).json();
  const id = queued[0] as string;
  const waiting = await waitFor(
    'the scale to wait for approval',
    async () => {
      const inv = (await getJson(`${http.base}/api/investigations/${id}`)).body;
      return !['queued', 'running'].includes(inv.status) && inv;
    },
    90_000,
  );
  expect({ status: waiting.status, rca: waiting.rca }).toEqual({ status: 'awaiting_approval', rca: null });
  expect(waiting.approvals.pending[0].reason).toContain('spec.replicas: 3 → 5');
  expect(applied()).toEqual([]);
  return id;
}

async function approve(id: string): Promise<void> {
  const decided = await fetch(`${http.base}/api/investigations/${id}/approvals`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      decisions: [{ toolCallId: 'c-scale', approved: true }],
      decidedBy: { via: 'cli', user: 'alice' },
    }),
  });
  expect(decided.status).toBe(202);
}

async function completed(id: string) {
  return waitFor(
    'the investigation to complete',
    async () => {
      const inv = (await getJson(`${http.base}/api/investigations/${id}`)).body;
      return inv.status === 'completed' && inv;
    },
    90_000,
  );
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', r));

describe('an approved kubectl_scale whose worker is killed during the write', () => {
  it('is applied once: the worker that resumes it finds the replicas set and writes nothing', async () => {
    const first = startWorker();
    const id = await proposeScale();
    holdNext = true;
    await approve(id);
    await waitFor('the approved write to reach the API server', async () => applied().length === 1, 30_000);
    first.kill('SIGKILL');
    await exited(first);

    startWorker();
    const done = await completed(id);
    expect(applied()).toHaveLength(1);
    expect(done.rca).toContain('after scale: success');
    expect(done.rca).toContain('already applied by this approval');
    expect(k8s.objects[0]!.spec).toMatchObject({ replicas: 5 });
    expect(done.remediation).toHaveLength(1);
    expect(done.remediation[0]).toMatchObject({ toolCallId: 'c-scale', result: 'already_applied' });
    // The dashboard's investigation page shows it, with its approver.
    const page = await (await fetch(`${http.base}/investigations/${id}`)).text();
    const section = page.slice(page.indexOf('id="remediation"'));
    expect(section).toContain('<h2>Remediation <small>(1)</small></h2>');
    expect(section).toMatch(/already applied<\/span>\s*<code>kubectl_scale<\/code> deployment <code>shop\/web<\/code>/);
    expect(section).toContain('approved by <span class="approver">alice</span> via cli');
  }, 240_000);
});

describe.each([
  // [crash point, what the resumed run finds, the entry's result]
  ['approved-call:before-begin', 'nothing logged: it runs the call', 'applied'],
  ['approved-call:before-run', 'the call started, no write: it runs it again', 'applied'],
  ['approved-call:before-finish', 'the write made, no result: it finds the marker', 'already_applied'],
  ['approved-call:before-record', 'the result logged, no entry: it records it', 'applied'],
])('a worker killed at %s', (point, _finds, result) => {
  it(`applies the scale once and records one remediation entry (${_finds})`, async () => {
    const first = startWorker(point);
    const id = await proposeScale();
    await approve(id);
    await exited(first);
    expect(first.signalCode).toBe('SIGKILL');

    startWorker();
    const done = await completed(id);
    expect(applied()).toHaveLength(1);
    expect(applied()[0]).toMatchObject({ method: 'PATCH' });
    expect(k8s.objects[0]!.spec).toMatchObject({ replicas: 5 });
    expect(done.remediation).toEqual([
      expect.objectContaining({
        toolCallId: 'c-scale',
        tool: 'kubectl_scale',
        params: SCALE,
        workload: { kind: 'deployment', namespace: 'shop', name: 'web' },
        approvedBy: { via: 'cli', user: 'alice' },
        result,
      }),
    ]);
  }, 240_000);
});
