import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import { toolsets } from '../../../toolsets/index.js';
import { verifyProbes } from '../../../toolsets/verify-probes.js';

// The verifier's probes come from the toolsets as configured: none switched on, none used.

const load = (env: Record<string, string>, yaml?: string) => {
  const file = yaml ? join(mkdtempSync(join(tmpdir(), 'verify-')), 'lestrade.yaml') : undefined;
  if (file) writeFileSync(file, yaml!);
  return loadConfig(env, file, [], [], toolsets);
};

describe('verifyProbes', () => {
  it('has nothing to check with when nothing is configured, and the default window', () => {
    const p = verifyProbes(load({}));
    expect(p.rollout).toBeUndefined();
    expect(p.alerts).toEqual([]);
    expect([p.windowSeconds, p.intervalSeconds]).toEqual([600, 30]);
  });

  it('uses Alertmanager then Prometheus, and the rollout through the remediation context, as configured', () => {
    const yaml = [
      'toolsets:',
      '  kubernetes_remediation: { enabled: true, context: fix, namespaces: [shop], verifyWindowSeconds: 120, verifyIntervalSeconds: 10 }',
    ].join('\n');
    const p = verifyProbes(load({ ALERTMANAGER_URL: 'http://am:9093', PROMETHEUS_URL: 'http://prom:9090' }, yaml));
    expect(p.alerts?.map((a) => a.name)).toEqual(['alertmanager', 'prometheus']);
    expect(typeof p.rollout).toBe('function');
    expect([p.windowSeconds, p.intervalSeconds]).toEqual([120, 10]);
  });

  it('leaves out an alert toolset switched off', () => {
    const yaml = 'toolsets:\n  settings:\n    alertmanager: { enabled: false }\n';
    const p = verifyProbes(load({ ALERTMANAGER_URL: 'http://am:9093', PROMETHEUS_URL: 'http://prom:9090' }, yaml));
    expect(p.alerts?.map((a) => a.name)).toEqual(['prometheus']);
  });
});
