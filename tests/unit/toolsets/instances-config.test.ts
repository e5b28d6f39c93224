import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load-config.js';
import type { Tool } from '../../../src/tools/types.js';
import { builtinToolsets, toolsets } from '../../../toolsets/index.js';

// `instances` of the toolsets that talk to one system each (prometheus, loki, alertmanager, kubernetes): checked
// with the rest of the configuration, a mistake naming its key; each toolset built over them offers one set of
// tools whose `instance` enum lists them, the single-URL form's `default` first.

function configFile(yaml: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'lestrade-instances-config-')), 'lestrade.yaml');
  writeFileSync(path, yaml);
  return path;
}
const load = (yaml: string, env: Record<string, string> = {}) => loadConfig(env, configFile(yaml), [], [], toolsets);
const instanceEnum = (tool: Tool | undefined) =>
  (tool?.params.shape.instance as { unwrap?: () => { options: string[] } } | undefined)?.unwrap?.().options;

describe('instances in the configuration', () => {
  it('refuses two instances of one name, naming the key', () => {
    const twice = `toolsets:\n  prometheus:\n    instances: [{ name: a, url: "http://a:9090" }, { name: a, url: "http://b:9090" }]\n`;
    expect(() => load(twice)).toThrow(/toolsets\.prometheus\.instances.*instance names must differ/s);
  });

  it('refuses an instance named default beside url, which is the default instance', () => {
    const yaml = `toolsets:\n  loki:\n    url: "http://loki:3100"\n    instances: [{ name: default, url: "http://other:3100" }]\n`;
    expect(() => load(yaml)).toThrow(/toolsets\.loki\.instances.*url is the instance named default/s);
  });

  it('refuses a name the model could not pass, and a kubernetes instance without its context', () => {
    expect(() => load(`toolsets:\n  alertmanager:\n    instances: [{ name: "a b", url: "http://am:9093" }]\n`)).toThrow(
      /toolsets\.alertmanager\.instances\.0\.name/,
    );
    expect(() => load(`toolsets:\n  kubernetes:\n    instances: [{ name: a }]\n`)).toThrow(
      /toolsets\.kubernetes\.instances\.0\.context/,
    );
  });

  it('builds prometheus, loki and alertmanager over their instances, PROMETHEUS_URL as the default one', () => {
    const config = load(
      `toolsets:
  prometheus:
    instances: [{ name: eu, url: "http://eu:9090" }]
  loki:
    instances: [{ name: eu, url: "http://loki-eu:3100", tenant: t }, { name: us, url: "http://loki-us:3100" }]
  alertmanager:
    instances: [{ name: eu, url: "http://am-eu:9093" }, { name: us, url: "http://am-us:9093" }]
`,
      { PROMETHEUS_URL: 'http://prom:9090' },
    );
    const built = builtinToolsets(config);
    const toolOf = (ts: string, tool: string) => built.find((t) => t.name === ts)?.tools.find((t) => t.name === tool);
    expect(instanceEnum(toolOf('prometheus', 'prometheus_query'))).toEqual(['default', 'eu']);
    expect(instanceEnum(toolOf('loki', 'loki_query_range'))).toEqual(['eu', 'us']);
    expect(instanceEnum(toolOf('alertmanager', 'alertmanager_create_silence'))).toEqual(['eu', 'us']);
    expect(toolOf('alertmanager', 'alertmanager_create_silence')?.sideEffects).toBe(true);
    expect(built.find((t) => t.name === 'loki')?.description).toContain('(instances: eu, us)');
  });

  it('leaves the single-URL forms without an instance parameter', () => {
    const built = builtinToolsets(load('{}', { PROMETHEUS_URL: 'http://prom:9090', LOKI_URL: 'http://loki:3100' }));
    for (const ts of built.filter((t) => ['prometheus', 'loki', 'alertmanager'].includes(t.name)))
      for (const tool of ts.tools) expect(tool.params.shape).not.toHaveProperty('instance');
  });
});
