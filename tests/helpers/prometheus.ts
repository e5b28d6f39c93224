import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpOk, startDaemon, type Daemon } from './child-process.js';
import { freePort } from './free-port.js';
import { requireBinary } from './require-binary.js';

export interface TestPrometheus {
  url: string;
  port: number;
  daemon: Daemon;
  stop(): Promise<void>;
}

export const E2E_RULES = `groups:
  - name: lestrade-e2e
    interval: 1s
    rules:
      - alert: PrometheusSelfScrapeUp
        expr: up{job="prometheus"} == 1
        labels: { severity: warning, namespace: monitoring }
        annotations:
          summary: Prometheus scrapes itself
          description: The self-scrape target is up
          runbook_url: https://runbooks.example/self-scrape
`;

/** Another target to scrape every second, with a bearer token when it needs one. */
export interface ScrapeTarget {
  job: string;
  target: string;
  bearerToken?: string;
}

/** A real Prometheus on a free loopback port, scraping itself (and `scrape` targets) every second. */
export async function startPrometheus(
  opts: { alertmanagerPort?: number; rules?: string; scrape?: ScrapeTarget[] } = {},
): Promise<TestPrometheus> {
  const bin = requireBinary('prometheus');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'lestrade-prom-'));
  writeFileSync(join(dir, 'rules.yml'), opts.rules ?? E2E_RULES);
  writeFileSync(
    join(dir, 'prometheus.yml'),
    `global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: [${JSON.stringify(join(dir, 'rules.yml'))}]
${opts.alertmanagerPort ? `alerting: { alertmanagers: [ { static_configs: [ { targets: ['127.0.0.1:${opts.alertmanagerPort}'] } ] } ] }` : ''}
scrape_configs:
  - job_name: prometheus
    static_configs: [ { targets: ['127.0.0.1:${port}'] } ]
${(opts.scrape ?? []).map(scrapeConfig).join('')}`,
  );
  const url = `http://127.0.0.1:${port}`;
  const daemon = await startDaemon(
    bin,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--rules.alert.resend-delay=1s',
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

function scrapeConfig(t: ScrapeTarget): string {
  return `  - job_name: ${JSON.stringify(t.job)}
    static_configs: [ { targets: [${JSON.stringify(t.target)}] } ]
${t.bearerToken ? `    authorization: { credentials: ${JSON.stringify(t.bearerToken)} }\n` : ''}`;
}

/** The value of an instant PromQL query that returns one series; null when it returns none. */
export async function queryOne(prom: { url: string }, promql: string): Promise<number | null> {
  const res = await fetch(`${prom.url}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const body = (await res.json()) as {
    status: string;
    error?: string;
    data: { result: Array<{ value: [number, string] }> };
  };
  if (body.status !== 'success') throw new Error(`query ${promql} failed: ${body.error}`);
  if (body.data.result.length > 1)
    throw new Error(`query ${promql} returned ${body.data.result.length} series, expected one`);
  const first = body.data.result[0];
  return first ? Number(first.value[1]) : null;
}
