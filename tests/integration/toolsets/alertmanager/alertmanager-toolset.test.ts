import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { callKey, paramsKey } from '../../../../src/tools/call-key.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import { resolveToolsets, type ResolvedToolsets } from '../../../../src/tools/toolset-registry.js';
import { createAlertmanagerToolset } from '../../../../toolsets/alertmanager/index.js';
import { pushAlerts, startAlertmanager, type TestAlertmanager } from '../../../helpers/alertmanager.js';
import { freePort } from '../../../helpers/free-port.js';

// The Alertmanager toolset against the real Debian prometheus-alertmanager (tests/helpers/alertmanager.ts).

let am: TestAlertmanager;
let r: ResolvedToolsets;
let executor: ToolExecutor;

interface AmSilence {
  id: string;
  createdBy: string;
  comment: string;
  status: { state: string };
  matchers: unknown[];
  startsAt: string;
  endsAt: string;
}
const silencesInAm = async (): Promise<AmSilence[]> =>
  ((await (await fetch(`${am.url}/api/v2/silences`)).json()) as AmSilence[]).filter(
    (s) => s.status.state !== 'expired',
  );

/** A call through the executor (the one door), its data parsed back from the JSON text the model gets. */
async function call(name: string, args: Record<string, unknown>, approved = false) {
  const res = await executor.execute(
    { id: `c-${name}`, name, arguments: JSON.stringify(args) },
    approved ? { approvedCallKey: callKey(name, JSON.stringify(args)) } : {},
  );
  return typeof res.data === 'string' ? { ...res, data: JSON.parse(res.data) as unknown } : res;
}

beforeAll(async () => {
  am = await startAlertmanager({ webhookUrl: 'http://127.0.0.1:9/unused', token: 't', groupWait: '30s' });
  await pushAlerts(am.url, [
    {
      labels: { alertname: 'KubePodCrashLooping', namespace: 'prod', pod: 'api-0', severity: 'critical' },
      annotations: { summary: 'api-0 crash loops', dashboard: 'https://grafana/d/x' },
    },
    {
      labels: { alertname: 'KubePodCrashLooping', namespace: 'prod', pod: 'api-1', severity: 'critical' },
      annotations: { summary: 'api-1 crash loops' },
    },
    { labels: { alertname: 'DiskFull', namespace: 'db', severity: 'warning' }, annotations: { summary: 'disk 95%' } },
  ]);
  r = await resolveToolsets([createAlertmanagerToolset({ url: am.url, maxSilenceHours: 4 })], {}, {});
  executor = new ToolExecutor({ tools: r.currentTools, approvalRequired: r.approvalRequired, toolsetOf: r.toolsetOf });
}, 60_000);
afterAll(async () => {
  await r?.close();
  await am?.stop();
});
beforeEach(async () => {
  for (const s of await silencesInAm()) await fetch(`${am.url}/api/v2/silence/${s.id}`, { method: 'DELETE' });
});

describe('the Alertmanager toolset', () => {
  it('is enabled when Alertmanager is ready, and disabled with why when it is not there or not configured', async () => {
    expect(r.statuses[0]).toMatchObject({
      name: 'alertmanager',
      state: 'enabled',
      tools: [
        'alertmanager_alerts',
        'alertmanager_alert_groups',
        'alertmanager_silences',
        'alertmanager_create_silence',
      ],
    });
    const dead = `http://127.0.0.1:${await freePort()}`;
    const down = await resolveToolsets([createAlertmanagerToolset({ url: dead, maxSilenceHours: 4 })], {}, {});
    expect(down.statuses[0]).toMatchObject({
      state: 'disabled',
      reason: `prerequisite not met: ${dead}/-/ready did not answer: ECONNREFUSED`,
    });
    const none = await resolveToolsets([createAlertmanagerToolset({ maxSilenceHours: 4 })], {}, {});
    expect(none.statuses[0]).toMatchObject({
      state: 'disabled',
      reason: 'prerequisite not met: no Alertmanager URL: set ALERTMANAGER_URL or toolsets.alertmanager.url',
    });
  });

  it('lists the alerts a matcher selects, trimmed to what an engineer reads', async () => {
    const res = await call('alertmanager_alerts', { matchers: ['alertname="KubePodCrashLooping"', 'pod=~"api-.*"'] });
    expect(res.status).toBe('success');
    const data = res.data as { total: number; alerts: Array<Record<string, unknown>> };
    expect(data.total).toBe(2);
    expect(data.alerts.map((a) => (a.labels as Record<string, string>).pod).sort()).toEqual(['api-0', 'api-1']);
    const api0 = data.alerts.find((a) => (a.labels as Record<string, string>).pod === 'api-0')!;
    expect(api0).toEqual({
      labels: { alertname: 'KubePodCrashLooping', namespace: 'prod', pod: 'api-0', severity: 'critical' },
      annotations: { summary: 'api-0 crash loops' },
      state: 'active',
      startsAt: expect.any(String),
      fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    expect(await call('alertmanager_alerts', { matchers: ['namespace="nowhere"'] })).toMatchObject({
      status: 'no_data',
      data: { total: 0 },
    });
    expect(await call('alertmanager_alerts', { matchers: ['namespace = prod"'] })).toMatchObject({
      status: 'error',
      error: expect.stringMatching(/^matchers\[0\]: "namespace = prod"" is not a matcher like/),
    });
  });

  it("lists alert groups as the route's group_by makes them", async () => {
    const res = await call('alertmanager_alert_groups', { matchers: ['namespace="prod"'] });
    expect(res).toMatchObject({
      status: 'success',
      data: {
        total: 1,
        groups: [
          {
            labels: { alertname: 'KubePodCrashLooping', namespace: 'prod' },
            receiver: 'lestrade',
            alertCount: 2,
          },
        ],
      },
    });
  });

  it("creates a silence only for the approved call, as approved, once, and lists it; the alert shows it's silenced", async () => {
    const args = { matchers: ['alertname="DiskFull"', 'namespace="db"'], duration: '2h', comment: 'disk grows' };
    expect(await call('alertmanager_create_silence', args)).toMatchObject({ status: 'approval_required' });
    expect(await silencesInAm()).toEqual([]);
    const other = { ...args, duration: '3h' };
    expect(
      await executor.execute(
        { id: 'x', name: 'alertmanager_create_silence', arguments: JSON.stringify(other) },
        { approvedCallKey: callKey('alertmanager_create_silence', JSON.stringify(args)) },
      ),
    ).toMatchObject({ status: 'approval_required' });
    expect(await silencesInAm()).toEqual([]);

    const made = await call('alertmanager_create_silence', args, true);
    expect(made).toMatchObject({ status: 'success', data: { created: true, silence: { state: 'active' } } });
    const [silence, ...more] = await silencesInAm();
    expect(more).toEqual([]);
    expect(silence).toMatchObject({
      createdBy: 'lestrade',
      comment: expect.stringMatching(/^disk grows \[lestrade:[0-9a-f]{16}\]$/),
      matchers: [
        { name: 'alertname', value: 'DiskFull', isRegex: false, isEqual: true },
        { name: 'namespace', value: 'db', isRegex: false, isEqual: true },
      ],
    });
    expect(Date.parse(silence!.endsAt) - Date.parse(silence!.startsAt)).toBeCloseTo(2 * 3_600_000, -4);
    expect((made.data as { silence: { id: string } }).silence.id).toBe(silence!.id);

    // The same approved call run again (a worker that died after posting) finds its silence: still one.
    expect(await call('alertmanager_create_silence', args, true)).toMatchObject({
      data: { created: false, silence: { id: silence!.id } },
    });
    expect(await silencesInAm()).toHaveLength(1);

    expect(await call('alertmanager_alerts', { matchers: ['alertname="DiskFull"'] })).toMatchObject({
      data: { alerts: [{ state: 'suppressed', silencedBy: [silence!.id] }] },
    });
    expect(await call('alertmanager_silences', { matchers: ['alertname="DiskFull"'] })).toMatchObject({
      status: 'success',
      data: {
        total: 1,
        silences: [
          {
            id: silence!.id,
            state: 'active',
            matchers: ['alertname="DiskFull"', 'namespace="db"'],
            createdBy: 'lestrade',
          },
        ],
      },
    });
  });

  it('makes one silence when Alertmanager takes the POST but the connection drops before its answer', async () => {
    // A proxy that passes everything to the real Alertmanager, but hangs up on the first silence POST
    // once Alertmanager has created it: the tool sees a failure, and the retry must not create another.
    let dropped = 0;
    const proxy = createServer((req, res) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        const upstream = await fetch(`${am.url}${req.url}`, {
          method: req.method,
          headers: { 'content-type': 'application/json' },
          ...(req.method === 'POST' ? { body: Buffer.concat(chunks) } : {}),
        });
        const text = await upstream.text();
        if (req.method === 'POST' && dropped === 0) {
          dropped += 1;
          req.socket.destroy();
          return;
        }
        res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
      })();
    });
    await new Promise<void>((done) => proxy.listen(0, '127.0.0.1', () => done()));
    const via = await resolveToolsets(
      [
        createAlertmanagerToolset({
          url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
          maxSilenceHours: 4,
        }),
      ],
      {},
      {},
    );
    const tool = via.tools.find((t) => t.name === 'alertmanager_create_silence')!;
    const args = tool.params.parse({ matchers: ['alertname="DiskFull"'], duration: '1h', comment: 'dropped' });
    const ctx = {
      signal: new AbortController().signal,
      approved: true,
      approvedCall: paramsKey('alertmanager_create_silence', args),
    };
    try {
      await expect(tool.run(args, ctx)).rejects.toThrow();
      expect(dropped).toBe(1);
      expect(await silencesInAm()).toHaveLength(1);
      expect(await tool.run(args, ctx)).toMatchObject({ status: 'success', data: { created: false } });
      expect(await silencesInAm()).toHaveLength(1);
    } finally {
      await via.close();
      proxy.closeAllConnections();
      proxy.close();
    }
  });

  it('refuses in the runner itself a call that was not approved, or not this one', async () => {
    const tool = r.tools.find((t) => t.name === 'alertmanager_create_silence')!;
    const args = tool.params.parse({ matchers: ['alertname="DiskFull"'], duration: '1h', comment: 'c' });
    const signal = new AbortController().signal;
    for (const ctx of [
      { signal, approved: false },
      { signal, approved: true, approvedCall: paramsKey('alertmanager_create_silence', { ...args, duration: '2h' }) },
    ])
      expect(await tool.run(args, ctx)).toEqual({
        status: 'error',
        error: "refused: creating a silence needs a human's approval of this exact call",
      });
    expect(await silencesInAm()).toEqual([]);
  });

  it('refuses a silence longer than the configured maximum, one that silences everything, and a bad duration', async () => {
    const base = { matchers: ['alertname="DiskFull"'], comment: 'c' };
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...base, duration: '5h' }, /at most 4 h \(toolsets\.alertmanager\.maxSilenceHours\)/],
      [{ ...base, matchers: ['alertname=~".*"'], duration: '1h' }, /at least one must not match the empty string/],
      [{ ...base, duration: 'soon' }, /duration: "soon" is not a duration/],
      [{ ...base }, /exactly one of duration or endsAt/],
      [{ ...base, endsAt: '2020-01-01T00:00:00Z' }, /must end after it starts and after now/],
    ];
    for (const [args, error] of cases)
      expect(await call('alertmanager_create_silence', args, true), JSON.stringify(args)).toMatchObject({
        status: 'error',
        error: expect.stringMatching(error),
      });
    expect(await silencesInAm()).toEqual([]);
  });
});
