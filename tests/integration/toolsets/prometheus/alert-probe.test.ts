import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prometheusProbe } from '../../../../toolsets/prometheus/alert-probe.js';
import { waitFor } from '../../../helpers/service.js';
import { startPrometheus, type TestPrometheus } from '../../../helpers/prometheus.js';

// The verifier's alert probe against a real Prometheus whose rule fires: ALERTS{alertstate="firing"} matched by labels.

let prom: TestPrometheus;
beforeAll(async () => {
  prom = await startPrometheus({
    rules: `groups:
  - name: probe
    interval: 1s
    rules:
      - alert: WebDown
        expr: vector(1)
        labels: { namespace: shop }
`,
  });
});
afterAll(async () => prom?.stop());

const issue = (labels: Record<string, string>) => ({ fingerprint: 'f', source: 'alertmanager', labels });

describe('prometheusProbe', () => {
  it("says firing while ALERTS has a series whose labels are all the issue's, and not for another alert", async () => {
    const probe = prometheusProbe(prom.url);
    // The issue may carry more labels than ALERTS (Alertmanager's external ones): still the same alert.
    const same = issue({ alertname: 'WebDown', namespace: 'shop', job: 'prometheus', cluster: 'eu-1' });
    const state = await waitFor('the rule to fire', async () => {
      const got = await probe.check(same, AbortSignal.timeout(5_000));
      return got?.firing ? got : null;
    });
    expect(state).toEqual({ firing: true, via: `Prometheus ALERTS at ${prom.url}` });
    expect(
      await probe.check(issue({ alertname: 'WebDown', namespace: 'payments' }), AbortSignal.timeout(5_000)),
    ).toMatchObject({
      firing: false,
    });
    expect(
      await probe.check(issue({ alertname: 'Other', namespace: 'shop' }), AbortSignal.timeout(5_000)),
    ).toMatchObject({
      firing: false,
    });
    expect(await probe.check(issue({ namespace: 'shop' }), AbortSignal.timeout(5_000))).toBeNull();
  });
});
