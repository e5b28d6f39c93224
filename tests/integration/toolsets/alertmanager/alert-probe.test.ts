import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alertmanagerProbe } from '../../../../toolsets/alertmanager/alert-probe.js';
import { pushAlerts, startAlertmanager, type TestAlertmanager } from '../../../helpers/alertmanager.js';

// The verifier's alert probe against a real Alertmanager: an alert pushed is firing; pushed again resolved, it is not.

let am: TestAlertmanager;
beforeAll(async () => {
  am = await startAlertmanager({ webhookUrl: 'http://127.0.0.1:9/nowhere', token: 't' });
});
afterAll(async () => am?.stop());

const LABELS = { alertname: 'DiskFull', namespace: 'shop' };
const issue = (labels: Record<string, string>) => ({ fingerprint: 'not-am-s', source: 'pagerduty', labels });

describe('alertmanagerProbe', () => {
  it('says firing while Alertmanager lists the alert (by all its labels), and not once it resolved', async () => {
    const probe = alertmanagerProbe(am.url);
    const signal = AbortSignal.timeout(10_000);
    await pushAlerts(am.url, [{ labels: LABELS }]);
    expect(await probe.check(issue(LABELS), signal)).toEqual({ firing: true, via: `Alertmanager at ${am.url}` });
    expect(await probe.check(issue({ ...LABELS, namespace: 'payments' }), signal)).toMatchObject({ firing: false });
    expect(await probe.check(issue({ namespace: 'shop' }), signal)).toBeNull();
    await pushAlerts(am.url, [{ labels: LABELS, endsAt: new Date(Date.now() - 1000).toISOString() }]);
    expect(await probe.check(issue(LABELS), signal)).toMatchObject({ firing: false });
  });

  it("matches Alertmanager's own fingerprint when the issue has it, whatever its labels", async () => {
    const probe = alertmanagerProbe(am.url);
    const labels = { alertname: 'DiskFull', namespace: 'billing' };
    await pushAlerts(am.url, [{ labels }]);
    const listed = (await (await fetch(`${am.url}/api/v2/alerts?filter=namespace="billing"`)).json()) as {
      fingerprint: string;
    }[];
    const byPrint = {
      fingerprint: listed[0]!.fingerprint,
      source: 'alertmanager',
      labels: { alertname: 'DiskFull', x: 'y' },
    };
    expect(await probe.check(byPrint, AbortSignal.timeout(10_000))).toMatchObject({ firing: true });
  });
});
