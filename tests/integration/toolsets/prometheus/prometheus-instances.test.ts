/**
 * Two real Prometheus servers as two named instances of the one prometheus toolset, from a config file through
 * the investigator the service builds (cli/build-investigator.ts) and a scripted model: an alert labelled
 * cluster=a reads a's rules, a call to b is refused to the model as a tool error, crossInstance lets it through,
 * and the single-URL form is as it was (no instance parameter, no instance on the calls).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInvestigator } from '../../../../cli/build-investigator.js';
import { loadConfig } from '../../../../src/config/load-config.js';
import type { ToolResult } from '../../../../src/tools/types.js';
import { toolsets as toolsetRegistry } from '../../../../toolsets/index.js';
import { anAlert } from '../../../helpers/issue.js';
import { startPrometheus, type TestPrometheus } from '../../../helpers/prometheus.js';
import { startScriptedLlm, type Reply, type ScriptedLlm } from '../../../helpers/scripted-llm.js';

const rules = (alert: string) => `groups:
  - name: only-here
    rules:
      - alert: ${alert}
        expr: vector(1)
`;

let a: TestPrometheus;
let b: TestPrometheus;
let llm: ScriptedLlm | undefined;

beforeAll(async () => {
  [a, b] = await Promise.all([
    startPrometheus({ rules: rules('ClusterAOnly') }),
    startPrometheus({ rules: rules('ClusterBOnly') }),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop(), llm?.close()]);
});

const RULES_OF_EACH: Reply[] = [
  {
    toolCalls: [
      { name: 'prometheus_rules', arguments: { type: 'alert' } },
      { name: 'prometheus_rules', arguments: { type: 'alert', instance: 'b' } },
    ],
  },
  { content: '## Root cause\nseen' },
];

/** One investigation of an alert labelled cluster=a with `prometheus` as the toolset's settings (YAML). */
async function investigate(prometheus: string, script: Reply[] = RULES_OF_EACH) {
  await llm?.close();
  llm = await startScriptedLlm(script);
  const configPath = join(mkdtempSync(join(tmpdir(), 'lestrade-instances-')), 'lestrade.yaml');
  writeFileSync(configPath, `toolsets:\n  prometheus:\n${prometheus}\n`);
  const env = { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: llm.baseUrl };
  const config = loadConfig(env, configPath, [], [], toolsetRegistry);
  const { investigator, toolsets } = await buildInvestigator(config, env);
  try {
    const result = await investigator.investigate(
      anAlert('high-latency', { labels: { cluster: 'a', alertname: 'X' } }),
    );
    return { calls: result.state.toolCalls, tools: llm.requests[0]!.tools ?? [] };
  } finally {
    await toolsets.close();
  }
}

const TWO = (extra = '') => `    instances:
      - { name: a, url: "A_URL", description: the EU production cluster }
      - { name: b, url: "B_URL", description: staging }
${extra}`;
const withUrls = (yaml: string) => yaml.replace('A_URL', a.url).replace('B_URL', b.url);

function rulesIn(call: ToolResult | undefined): string[] {
  return [...new Set([...(call?.data ?? '').matchAll(/Cluster[AB]Only/g)].map((m) => m[0]))];
}

describe('two Prometheus servers as instances of one toolset', () => {
  it("reads the alert's own cluster and refuses the other, recording the instance on each call", async () => {
    const { calls, tools } = await investigate(withUrls(TWO()));
    const spec = tools.find((t) => t.function.name === 'prometheus_rules')!.function.parameters as {
      properties: Record<string, { enum?: string[]; description?: string }>;
    };
    expect(spec.properties.instance?.enum).toEqual(['a', 'b']);
    expect(spec.properties.instance?.description).toContain('a: the EU production cluster; b: staging');
    expect(tools.filter((t) => t.function.name.startsWith('prometheus_rules'))).toHaveLength(1);
    const [own, other] = calls;
    expect(own).toMatchObject({ tool: 'prometheus_rules', status: 'success', instance: 'a' });
    expect(rulesIn(own)).toEqual(['ClusterAOnly']);
    expect(other).toMatchObject({ tool: 'prometheus_rules', status: 'error' });
    expect(other!.error).toMatch(/^refused: instance b is not this issue's \(the issue is cluster=a, instance a\)/);
    expect(other!.error).toContain('toolsets.prometheus.crossInstance');
  });

  it('reads the other cluster when crossInstance allows it', async () => {
    const { calls } = await investigate(withUrls(TWO('    crossInstance: true')));
    expect(calls.map((c) => [c.status, c.instance, rulesIn(c)])).toEqual([
      ['success', 'a', ['ClusterAOnly']],
      ['success', 'b', ['ClusterBOnly']],
    ]);
  });

  it('picks the instance by the configured label', async () => {
    const script: Reply[] = [
      { toolCalls: [{ name: 'prometheus_rules', arguments: { type: 'alert' } }] },
      { content: 'done' },
    ];
    const { calls } = await investigate(
      withUrls(TWO('    instanceLabel: alertname')).replace('name: b', 'name: X'),
      script,
    );
    expect(calls.map((c) => [c.status, c.instance, rulesIn(c)])).toEqual([['success', 'X', ['ClusterBOnly']]]);
  });

  it('leaves the single-URL form as it was: no instance parameter, no instance on the calls', async () => {
    const script: Reply[] = [
      { toolCalls: [{ name: 'prometheus_rules', arguments: { type: 'alert' } }] },
      { content: 'done' },
    ];
    const { calls, tools } = await investigate(`    url: "${a.url}"`, script);
    const spec = tools.find((t) => t.function.name === 'prometheus_rules')!.function.parameters as {
      properties: Record<string, unknown>;
    };
    expect(Object.keys(spec.properties)).not.toContain('instance');
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ status: 'success' });
    expect(calls[0]).not.toHaveProperty('instance');
    expect(rulesIn(calls[0])).toEqual(['ClusterAOnly']);
  });
});
