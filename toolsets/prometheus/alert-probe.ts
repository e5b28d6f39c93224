import type { AlertProbe } from '../../src/remediation/probes.js';
import { PrometheusClient } from './prometheus-client.js';

interface Series {
  metric: Record<string, string>;
}

const IGNORED = new Set(['__name__', 'alertstate']);

/**
 * The verifier's alert probe over Prometheus' `ALERTS{alertname="…", alertstate="firing"}`: the issue's alert fires
 * while a series has every one of its labels equal to the issue's (the issue may carry more: Alertmanager's external
 * labels, which ALERTS does not).
 */
export function prometheusProbe(url: string, headers: Record<string, string> = {}): AlertProbe {
  const client = new PrometheusClient(url, headers);
  return {
    name: 'prometheus',
    async check(issue, signal) {
      const name = issue.labels.alertname;
      if (!name) return null;
      const query = `ALERTS{alertname=${JSON.stringify(name)},alertstate="firing"}`;
      const data = (await client.get('query', { query }, signal)) as { result?: Series[] };
      const firing = (data.result ?? []).some((s) =>
        Object.entries(s.metric).every(([k, v]) => IGNORED.has(k) || issue.labels[k] === v),
      );
      return { firing, via: `Prometheus ALERTS at ${client.displayUrl}` };
    },
  };
}
