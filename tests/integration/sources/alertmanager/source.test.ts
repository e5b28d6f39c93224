import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermanentError, RetryableError } from '../../../../src/errors.js';
import { AlertmanagerSource } from '../../../../sources/alertmanager/alertmanager-source.js';
import { pushAlerts, startAlertmanager, type TestAlertmanager } from '../../../helpers/alertmanager.js';
import { freePort } from '../../../helpers/free-port.js';

let am: TestAlertmanager;

beforeAll(async () => {
  am = await startAlertmanager({ webhookUrl: 'http://127.0.0.1:9/unused', token: 't' });
  await pushAlerts(am.url, [
    {
      labels: { alertname: 'HighLatency', service: 'api', severity: 'critical' },
      annotations: { summary: 'p99 over 1s', runbook_url: 'https://rb/latency' },
    },
    { labels: { alertname: 'DiskFull', service: 'db', severity: 'warning' } },
  ]);
}, 60_000);
afterAll(async () => {
  await am?.stop();
});

describe('AlertmanagerSource (API v2, real Alertmanager)', () => {
  it('fetches active alerts as Issues, filtered by label and alert name', async () => {
    const source = new AlertmanagerSource(am.url);
    const all = await source.fetchIssues({});
    expect(all.map((i) => i.labels.alertname).sort()).toEqual(['DiskFull', 'HighLatency']);
    const api = await source.fetchIssues({ labels: { service: 'api' } });
    expect(api).toHaveLength(1);
    expect(api[0]).toMatchObject({
      source: 'alertmanager',
      sourceInstance: am.url,
      status: 'open',
      severity: 'critical',
      title: 'HighLatency: p99 over 1s',
      annotations: { runbook_url: 'https://rb/latency' },
      identity: expect.stringMatching(/^[0-9a-f]{16}@\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(await source.fetchIssues({ titlePattern: /^Disk/ })).toHaveLength(1);
    expect(await source.fetchIssues({ limit: 1 })).toHaveLength(1);
  });

  it('fetches one issue by identity', async () => {
    const source = new AlertmanagerSource(am.url);
    const [first] = await source.fetchIssues({ labels: { service: 'db' } });
    expect((await source.fetchByIdentity(first!.identity))?.labels.service).toBe('db');
    expect(await source.fetchByIdentity('0000000000000000@2026-01-01T00:00:00.000Z')).toBeNull();
  });

  it('types its failures: unreachable is retryable, a rejected request is permanent', async () => {
    const dead = new AlertmanagerSource(`http://127.0.0.1:${await freePort()}`);
    await expect(dead.fetchIssues({})).rejects.toBeInstanceOf(RetryableError);
    const bad = new AlertmanagerSource(am.url);
    await expect(bad.fetchIssues({ labels: { 'not a label!': 'x' } })).rejects.toBeInstanceOf(PermanentError);
  });
});
