/**
 * Two Lokis (doubles: Grafana Loki is not packaged here) as instances of the one loki toolset, each with its own
 * tenant and token: an alert labelled cluster=eu reads eu's streams with eu's credentials, and us is never asked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveToolsets } from '../../../../src/tools/toolset-registry.js';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import { LokiSettingsSchema } from '../../../../toolsets/loki/config.js';
import { createLokiToolsets } from '../../../../toolsets/loki/index.js';
import { startLokiDouble, type LokiDouble } from '../../../helpers/doubles/loki-double.js';

let eu: LokiDouble;
let us: LokiDouble;
beforeAll(async () => {
  [eu, us] = await Promise.all([
    startLokiDouble({ tenants: ['eu-team'], authorization: 'Bearer eu-token' }),
    startLokiDouble({ tenants: ['us-team'], authorization: 'Bearer us-token' }),
  ]);
  eu.push({ app: 'checkout-eu' }, [{ ns: 1n, line: 'x' }], 'eu-team');
  us.push({ app: 'checkout-us' }, [{ ns: 1n, line: 'y' }], 'us-team');
});
afterAll(async () => {
  await Promise.all([eu?.stop(), us?.stop()]);
});

async function executor(crossInstance = false): Promise<ToolExecutor> {
  const settings = LokiSettingsSchema.parse({
    crossInstance,
    instances: [
      { name: 'eu', url: eu.url, tenant: 'eu-team', bearerToken: 'eu-token' },
      { name: 'us', url: us.url, tenant: 'us-team', bearerToken: 'us-token' },
    ],
  });
  const resolved = await resolveToolsets([createLokiToolsets(settings)], {}, {});
  expect(resolved.statuses[0]).toMatchObject({ state: 'enabled' });
  return new ToolExecutor({ tools: resolved.tools });
}
const values = (instance?: string) => ({
  id: 'c',
  name: 'loki_label_values',
  arguments: JSON.stringify({ label: 'app', start: '1970-01-01T00:00:00Z', ...(instance ? { instance } : {}) }),
});
const fromCluster = (cluster: string) => ({ scope: { labels: { cluster } } });

describe('two Lokis as instances of one toolset', () => {
  it("reads the alert's cluster's streams with that instance's tenant and token, and never asks the other", async () => {
    const exec = await executor();
    const asked = us.requests.length;
    const r = await exec.execute(values(), fromCluster('eu'));
    expect(r).toMatchObject({ status: 'success', data: 'checkout-eu', instance: 'eu' });
    const refused = await exec.execute(values('us'), fromCluster('eu'));
    expect(refused.error).toMatch(/^refused: instance us is not this issue's/);
    expect(us.requests.length).toBe(asked);
  });

  it('reads the other with its own credentials when crossInstance allows it', async () => {
    const exec = await executor(true);
    expect(await exec.execute(values('us'), fromCluster('eu'))).toMatchObject({
      status: 'success',
      data: 'checkout-us',
      instance: 'us',
    });
  });
});
