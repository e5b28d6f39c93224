/**
 * An approved remediation applied exactly once across a worker killed mid-write: the Kubernetes API double
 * applies the approved PATCH and never answers it, the worker is killed while it waits, and the worker that takes
 * the job over (a stalled BullMQ job) resumes the paused run from its checkpoint. The at-most-once log says the
 * call was started; the tool is idempotent, reads the deployment, finds the replicas set, and writes nothing.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

beforeAll(async () => {
  requireBinary('kubectl');
  redis = await startRedis();
  let held = false;
  k8s = await startKubernetesApiDouble(
    [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web', namespace: 'shop' },
        spec: { replicas: 3, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [] } } },
      },
    ],
    // The first applied write is applied and never answered: its worker dies waiting.
    { writable: true, hold: (w) => !w.dryRun && !held && (held = true) },
  );
  llm = await startScriptedLlm((req) => {
    const results = toolResults(req);
    if (results.length === 0) return { toolCalls: [{ id: 'c-scale', name: 'kubectl_scale', arguments: SCALE }] };
    return { content: `after scale: ${String(results[0]!.result.status)} ${String(results[0]!.result.data)}` };
  });
  http = await startTestService(redis.url, {}, { workers: false });
});
afterAll(async () => {
  await killAll(children);
  await http?.close();
  await llm?.close();
  await k8s?.stop();
  await redis?.stop();
});

function startWorker(configPath: string): ChildProcess {
  const child = spawnLestradeWorker({
    HOME: k8s.env.HOME,
    REDIS_URL: redis.url,
    OPENAI_BASE_URL: llm.baseUrl,
    LESTRADE_CONFIG: configPath,
  });
  children.push(child);
  return child;
}

const applied = () => k8s.writes.filter((w) => !w.dryRun);

describe('an approved kubectl_scale whose worker is killed during the write', () => {
  it('is applied once: the worker that resumes it finds the replicas set and writes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lestrade-remediation-'));
    const config = join(dir, 'lestrade.yaml');
    writeFileSync(
      config,
      [
        'queue: { lockDurationMs: 1500, stalledIntervalMs: 1000 }',
        'toolsets:',
        '  kubernetes_remediation:',
        `    { enabled: true, context: double, kubeconfig: ${JSON.stringify(k8s.kubeconfig)}, namespaces: [shop] }`,
      ].join('\n'),
    );
    const first = startWorker(config);
    const body = { ...amFixture('group-next').body, alerts: amFixture('group-next').body.alerts.slice(0, 1) };
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
        return inv.status === 'awaiting_approval' && inv;
      },
      40_000,
    );
    expect(waiting.approvals.pending[0].reason).toContain('spec.replicas: 3 → 5');
    expect(applied()).toEqual([]);
    const decided = await fetch(`${http.base}/api/investigations/${id}/approvals`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ decisions: [{ toolCallId: 'c-scale', approved: true }] }),
    });
    expect(decided.status).toBe(202);
    await waitFor('the approved write to reach the API server', async () => applied().length === 1, 30_000);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));

    startWorker(config);
    const done = await waitFor(
      'the investigation to complete',
      async () => {
        const inv = (await getJson(`${http.base}/api/investigations/${id}`)).body;
        return inv.status === 'completed' && inv;
      },
      60_000,
    );
    expect(applied()).toHaveLength(1);
    expect(done.rca).toContain('after scale: success');
    expect(done.rca).toContain('already applied by this approval');
    expect(k8s.objects[0]!.spec).toMatchObject({ replicas: 5 });
  }, 120_000);
});
