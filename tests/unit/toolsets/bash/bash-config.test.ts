import { describe, expect, it } from 'vitest';
import { resolveToolsets } from '../../../../src/tools/toolset-registry.js';
import { createBashToolset, type BashToolsetConfig } from '../../../../toolsets/bash/index.js';

/** toolsets/bash checks its own settings together at start-up, naming the key to change. */
const base: BashToolsetConfig = {
  allow: [],
  deny: [],
  curlHosts: [],
  timeoutMs: 1_000,
  maxOutputBytes: 1_000,
  env: [],
  sandbox: 'none',
};
const status = async (cfg: Partial<BashToolsetConfig>) =>
  (await resolveToolsets([createBashToolset({ ...base, ...cfg })], { bash: { enabled: true } }, {})).statuses[0];

describe('the bash toolset checks its own configuration', () => {
  it.each([
    ['http://prometheus:9090', /toolsets\.bash\.curlHosts: "http:\/\/prometheus:9090" is not host:port/],
    ['prometheus:99999', /"prometheus:99999" is not host:port/],
    ['user@prometheus:9090', /"user@prometheus:9090" is not host:port/],
  ])('refuses to start with curlHosts %j', async (entry, reason) => {
    expect(await status({ curlHosts: ['ok:80', entry] })).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(reason),
    });
  });

  it('refuses to start when a line of maxStages stages could never get its sandboxes', async () => {
    expect(await status({ maxStages: 9, maxSandboxes: 8 })).toMatchObject({
      state: 'failed',
      reason:
        'toolsets.bash.maxStages (9) is more than toolsets.bash.maxSandboxes (8): a line could never run; lower the first or raise the second',
    });
  });

  it('starts with host:port, a bare host, an IPv6 literal and matching caps', async () => {
    expect(
      await status({ curlHosts: ['prometheus:9090', 'grafana.example', '[::1]:8080'], maxStages: 8, maxSandboxes: 8 }),
    ).toMatchObject({ state: 'enabled' });
  });
});
