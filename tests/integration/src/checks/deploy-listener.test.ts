import { describe, expect, it } from 'vitest';
import { CheckSchema, type CheckConfig } from '../../../../src/config/checks-schema.js';
import { openCheckQueue } from '../../../../src/checks/check-queue.js';
import { createDeployListener, matchesDeploy } from '../../../../src/checks/deploy-listener.js';
import { createLogger } from '../../../../src/log.js';
import type { DeployEvent } from '../../../../src/records/deploy-event.js';
import { redisClient } from '../../../helpers/redis-client.js';

const r = redisClient();
const log = createLogger('silent');

const check = (over: Record<string, unknown>): CheckConfig =>
  CheckSchema.parse({
    name: 'checkout',
    question: 'Is checkout healthy after the rollout?',
    afterDeploy: true,
    ...over,
  });

const deploy = (over: Partial<DeployEvent> = {}): DeployEvent => ({
  id: 'gh-deploy-77',
  service: 'checkout',
  namespace: 'shop',
  version: 'v2.41.0',
  source: 'webhook',
  receivedAt: '2026-12-07T22:00:00Z',
  ...over,
});

describe('the checks deploy listener', () => {
  it('matches afterDeploy checks by services and namespaces; others never', () => {
    expect(matchesDeploy(check({}), deploy())).toBe(true);
    expect(matchesDeploy(check({ services: ['search'] }), deploy())).toBe(false);
    expect(matchesDeploy(check({ namespaces: ['shop'] }), deploy())).toBe(true);
    expect(matchesDeploy(check({ namespaces: ['shop'] }), deploy({ namespace: undefined }))).toBe(false);
    expect(matchesDeploy(check({ afterDeploy: false, everySeconds: 900 }), deploy())).toBe(false);
    expect(matchesDeploy(check({ enabled: false }), deploy())).toBe(false);
  });

  it('queues one delayed run per matching check and deploy, however often the deploy is told', async () => {
    const queue = openCheckQueue(r.client);
    try {
      const checks = [check({ delaySeconds: 300 }), check({ name: 'search', services: ['search'] })];
      const listener = createDeployListener(queue, checks, log);
      await listener(deploy());
      await listener(deploy());
      const delayed = await queue.getJobs(['delayed']);
      expect(delayed.map((j) => [j.data.check, j.data.kind, j.data.deploy?.version, j.opts.delay])).toEqual([
        ['checkout', 'deploy', 'v2.41.0', 300_000],
      ]);
      // Another deploy of the same service is another run.
      await listener(deploy({ id: 'gh-deploy-78', version: 'v2.42.0' }));
      expect(await queue.getJobCountByTypes('delayed')).toBe(2);
    } finally {
      await queue.close();
    }
  });
});
