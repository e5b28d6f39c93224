import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../../../src/redis/keys.js';
import { amFixture } from '../../../helpers/fixtures.js';
import { startRedis, type TestRedis } from '../../../helpers/redis-server.js';
import { startTestService, type TestService } from '../../../helpers/service.js';

let redis: TestRedis;
let svc: TestService;
let admin: Redis;
const list = async (query: string) => {
  const res = await fetch(`${svc.base}/api/investigations?${query}`);
  return {
    status: res.status,
    body: (await res.json()) as {
      items: Array<{ id: string; title: string; severity: string; status: string; source: string }>;
      error?: string;
      field?: string;
    },
  };
};
const titles = async (query: string) => (await list(query)).body.items.map((i) => i.title).sort();

/** One delivery of the group-next fixture's alert under another name and severity. */
function alertWith(name: string, severity: string) {
  const body = structuredClone(amFixture('group-next').body) as Record<string, any>;
  const alert = {
    ...body.alerts[0],
    fingerprint: createHash('sha256').update(name).digest('hex').slice(0, 16),
    labels: { alertname: name, namespace: 'prod', severity },
  };
  return {
    ...body,
    groupKey: `{}:{alertname="${name}"}`,
    groupLabels: { alertname: name },
    commonLabels: alert.labels,
    alerts: [alert],
    truncatedAlerts: 0,
  };
}

beforeAll(async () => {
  redis = await startRedis();
  admin = new Redis(redis.url);
  // No LLM: every investigation stays queued.
  svc = await startTestService(redis.url, {});
  for (const [name, severity] of [
    ['DiskFull', 'warning'],
    ['CpuHigh', 'critical'],
    ['Heartbeat', 'info'],
  ] as const) {
    const res = await fetch(`${svc.base}/webhooks/alertmanager`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(alertWith(name, severity)),
    });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
    await new Promise((r) => setTimeout(r, 5));
  }
});
afterAll(async () => {
  admin?.disconnect();
  await svc?.close();
  await redis?.stop();
});

describe('GET /api/investigations filters', () => {
  it('lists each one with its severity, and narrows by severity (one or several)', async () => {
    const all = (await list('')).body.items;
    expect(all.map((i) => [i.title.split(':')[0], i.severity])).toEqual([
      ['Heartbeat', 'info'],
      ['CpuHigh', 'critical'],
      ['DiskFull', 'warning'],
    ]);
    expect(await titles('severity=warning')).toEqual([expect.stringMatching(/^DiskFull/)]);
    expect((await titles('severity=critical,info')).map((t) => t.split(':')[0])).toEqual(['CpuHigh', 'Heartbeat']);
  });

  it('narrows by status and source, and pages the filtered list', async () => {
    // Info alerts are skipped by the default skip rule; the others wait (no LLM).
    expect((await titles('status=queued')).map((t) => t.split(':')[0])).toEqual(['CpuHigh', 'DiskFull']);
    expect((await titles('status=skipped')).map((t) => t.split(':')[0])).toEqual(['Heartbeat']);
    expect(await titles('status=completed')).toEqual([]);
    expect(await titles('status=skipped,queued&source=alertmanager')).toHaveLength(3);
    expect(await titles('source=github')).toEqual([]);
    const page = (await list('severity=critical,info&limit=1&offset=1')).body.items.map((i) => i.title.split(':')[0]);
    expect(page).toEqual(['CpuHigh']);
  });

  it('narrows by since: a duration back from now or an ISO time', async () => {
    expect(await titles('since=1h')).toHaveLength(3);
    expect(await titles(`since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).toEqual([]);
    const oldest = (await list('')).body.items.at(-1)!;
    const created = (await (await fetch(`${svc.base}/api/investigations/${oldest.id}`)).json()).createdAt as string;
    const after = new Date(Date.parse(created) + 1).toISOString();
    expect(await titles(`since=${encodeURIComponent(after)}`)).toHaveLength(2);
  });

  it('answers 400 naming the parameter for a bad limit, offset or filter, and lists nothing', async () => {
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=501', 'limit'],
      ['limit=ten', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=-1', 'limit'],
      ['offset=-3', 'offset'],
      ['status=done', 'status'],
      ['severity=urgent', 'severity'],
      ['source=Git%20Hub', 'source'],
      ['since=yesterday', 'since'],
      ['since=2h30', 'since'],
      ['status=queued&status=running', 'status'],
      ['severity=', 'severity'],
    ] as const) {
      const res = await list(query);
      expect(res.status, query).toBe(400);
      expect(res.body.field, query).toBe(field);
      expect(res.body.error, query).toMatch(new RegExp(`^${field}: `));
      expect(res.body.items, query).toBeUndefined();
    }
  });

  it('still knows the severity of a record written before it had a field of its own', async () => {
    const heartbeat = (await list('severity=info')).body.items[0]!;
    await admin.hdel(keys.investigation(heartbeat.id), 'severity');
    expect((await list('severity=info')).body.items.map((i) => i.id)).toEqual([heartbeat.id]);
    expect((await (await fetch(`${svc.base}/api/investigations/${heartbeat.id}`)).json()).severity).toBe('info');
  });
});
