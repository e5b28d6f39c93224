import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpOk, startDaemon, type Daemon } from './child-process.js';
import { freePort } from './free-port.js';
import { requireBinary } from './require-binary.js';

export interface TestAlertmanager {
  url: string;
  port: number;
  daemon: Daemon;
  stop(): Promise<void>;
}

/**
 * A real Alertmanager (Debian's prometheus-alertmanager) on a free loopback port, sending
 * webhooks with bearer credentials and short group and repeat intervals.
 */
export async function startAlertmanager(opts: {
  webhookUrl: string;
  token: string;
  port?: number;
  repeatInterval?: string;
  maxAlerts?: number;
  groupWait?: string;
  /** The whole configuration file instead of the one above (webhookUrl and token then unused). */
  configYaml?: string;
}): Promise<TestAlertmanager> {
  const bin = requireBinary('prometheus-alertmanager');
  const port = opts.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-am-'));
  writeFileSync(
    join(dir, 'alertmanager.yml'),
    opts.configYaml ??
      `route:
  receiver: lestrade
  group_by: [alertname, namespace]
  group_wait: ${opts.groupWait ?? '1s'}
  group_interval: 1s
  repeat_interval: ${opts.repeatInterval ?? '2s'}
receivers:
  - name: lestrade
    webhook_configs:
      - url: ${JSON.stringify(opts.webhookUrl)}
        send_resolved: true
        max_alerts: ${opts.maxAlerts ?? 10}
        http_config:
          authorization:
            credentials: ${JSON.stringify(opts.token)}
`,
  );
  const url = `http://127.0.0.1:${port}`;
  const daemon = await startDaemon(
    bin,
    [
      `--config.file=${join(dir, 'alertmanager.yml')}`,
      `--storage.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--cluster.listen-address=',
      '--log.level=warn',
    ],
    () => httpOk(`${url}/-/ready`),
    30_000,
  );
  return {
    url,
    port,
    daemon,
    stop: async () => {
      await daemon.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Posts alerts to Alertmanager's API v2, as Prometheus would. */
export async function pushAlerts(
  amUrl: string,
  alerts: Array<{
    labels: Record<string, string>;
    annotations?: Record<string, string>;
    startsAt?: string;
    /** In the past: the alert is resolved. */
    endsAt?: string;
  }>,
): Promise<void> {
  const res = await fetch(`${amUrl}/api/v2/alerts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(alerts),
  });
  if (!res.ok) throw new Error(`Alertmanager refused alerts: ${res.status} ${await res.text()}`);
}
