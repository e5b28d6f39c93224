import { describe, expect, it } from 'vitest';
import { mountSources, type MountedSource } from '../../../../src/app/mount-sources.js';
import type { Config } from '../../../../src/config/schema.js';
import { startupSummary } from '../../../../src/app/startup-summary.js';
import { loadConfig } from '../../../../src/config/load-config.js';
import { sources } from '../../../../sources/index.js';

// Issue 16, defect 12: `lestrade worker` warned that the Alertmanager webhook is unauthenticated,
// although a worker serves no HTTP. This test failed before the fix.
/** What `lestrade serve` (serving webhooks) or `lestrade worker` says at start-up about one source. */
function startupWarnings(m: MountedSource, servesWebhooks: boolean, config: Config): string[] {
  const summary = startupSummary({
    mode: servesWebhooks ? 'serve' : 'worker',
    config,
    redisUrl: 'redis://127.0.0.1:6379',
    localRedis: false,
    llmConfigured: true,
    port: 8080,
    mounted: [m],
    toolsets: [],
    host: '127.0.0.1',
    apiTokens: 1,
    destinations: new Map(),
  });
  return summary
    .split('\n')
    .filter((line) => /^\s+(warning|open)\s/.test(line))
    .map((line) => line.replace(/^\s+\S+\s+/, ''));
}

describe('start-up warnings', () => {
  // Open on purpose: without ALERTMANAGER_ALLOW_UNAUTHENTICATED it refuses every delivery (below).
  const config = loadConfig({ OPENAI_API_KEY: 'k', ALERTMANAGER_ALLOW_UNAUTHENTICATED: 'true' }, undefined, sources);
  const alertmanager = mountSources(sources, config, { log: undefined as never, env: {} }).find(
    (m) => m.name === 'alertmanager',
  )!;
  const unauthenticated = /\/webhooks\/alertmanager accepts unauthenticated requests/;

  it('a process serving webhooks warns that the Alertmanager webhook is unauthenticated', () => {
    expect(startupWarnings(alertmanager, true, config)).toContainEqual(expect.stringMatching(unauthenticated));
  });

  it('a worker does not', () => {
    expect(startupWarnings(alertmanager, false, config).filter((w) => unauthenticated.test(w))).toEqual([]);
  });
});

// Issue 16, defect 12 (rest): GitHub, PagerDuty, OpsGenie and JSM Ops said their webhook credential
// warnings in `lestrade worker` too. This test failed before they moved to webhookWarnings.
describe('webhook credential warnings', () => {
  const env = {
    OPENAI_API_KEY: 'k',
    GITHUB_TOKEN: 'ghp_x',
    PAGERDUTY_API_KEY: 'pd',
    PAGERDUTY_FROM_EMAIL: 'bot@example.com',
    OPSGENIE_API_KEY: 'og',
    JSM_OPS_EMAIL: 'bot@example.com',
    JSM_OPS_API_TOKEN: 'jsm',
    JSM_OPS_CLOUD_ID: 'cloud-1',
  };
  const config = loadConfig(env, undefined, sources);
  const mounted = mountSources(sources, config, { log: undefined as never, env: {} });
  const names = ['alertmanager', 'github', 'pagerduty', 'opsgenie', 'jsm-ops'];

  it.each(names)('%s: a process serving webhooks says its webhook refuses every delivery', (name) => {
    const m = mounted.find((x) => x.name === name)!;
    expect(startupWarnings(m, true, config)).toContainEqual(
      expect.stringMatching(new RegExp(`/webhooks/${name} refuses every delivery`)),
    );
  });

  it.each(names)('%s: a worker says nothing of webhooks', (name) => {
    const m = mounted.find((x) => x.name === name)!;
    expect(m.offReason ?? null).toBeNull();
    expect(startupWarnings(m, false, config).filter((w) => /webhook/i.test(w))).toEqual([]);
  });
});
