import type { AlertProbe } from '../../src/remediation/probes.js';
import { AlertmanagerClient } from './alertmanager-client.js';

interface ApiAlert {
  fingerprint?: string;
  labels?: Record<string, string>;
}

const quote = (v: string) => JSON.stringify(v);

/**
 * The verifier's alert probe over Alertmanager's API v2: GET /api/v2/alerts filtered by the alert's name (active,
 * silenced and inhibited ones: a silenced alert still fires). Alertmanager lists no resolved alert, so the issue's
 * alert fires while one of them has its fingerprint, or (an alert another source relayed) all of its labels.
 */
export function alertmanagerProbe(url: string, headers: Record<string, string> = {}): AlertProbe {
  const client = new AlertmanagerClient(url, headers);
  return {
    name: 'alertmanager',
    async check(issue, signal) {
      const name = issue.labels.alertname;
      if (!name) return null;
      const got = (await client.get(
        'alerts',
        {
          filter: `alertname=${quote(name)}`,
          active: 'true',
          silenced: 'true',
          inhibited: 'true',
          unprocessed: 'true',
        },
        signal,
      )) as ApiAlert[];
      const same = (a: ApiAlert) =>
        a.fingerprint === issue.fingerprint || Object.entries(issue.labels).every(([k, v]) => a.labels?.[k] === v);
      return { firing: got.some(same), via: `Alertmanager at ${client.displayUrl}` };
    },
  };
}
