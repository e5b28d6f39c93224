import { describe, expect, it } from 'vitest';
import { destinations } from '../../../../destinations/index.js';
import { loadConfig } from '../../../../src/config/load-config.js';
import { configSecrets } from '../../../../src/config/secrets.js';
import { sources } from '../../../../sources/index.js';
import { toolsets } from '../../../../toolsets/index.js';

const load = (env: Record<string, string>) => loadConfig(env, undefined, sources, destinations, toolsets);

describe('the PagerDuty Events and deploy webhook settings', () => {
  it('come from their environment variables, with safe defaults, and every credential is a secret', () => {
    const config = load({
      PAGERDUTY_ROUTING_KEY: 'R0UT1NGKEY0000000000000000000001',
      LESTRADE_DEPLOY_WEBHOOK_TOKEN: 'tok-a, tok-b',
      LESTRADE_DEPLOY_WEBHOOK_SECRET: 'sec-1',
    });
    expect(config.destinations['pagerduty_events']).toEqual({
      routingKey: 'R0UT1NGKEY0000000000000000000001',
      url: 'https://events.pagerduty.com/v2/enqueue',
      investigations: false,
      timeoutMs: 15_000,
    });
    expect(config.sources['deploy']).toEqual({ token: 'tok-a, tok-b', secret: 'sec-1' });
    const secrets = configSecrets(config);
    for (const s of ['R0UT1NGKEY0000000000000000000001', 'tok-a', 'tok-b', 'sec-1']) expect(secrets).toContain(s);
  });

  it('PAGERDUTY_EVENTS_URL must be a URL, named when it is not', () => {
    expect(() => load({ PAGERDUTY_ROUTING_KEY: 'k', PAGERDUTY_EVENTS_URL: 'events.eu.pagerduty.com' })).toThrow(
      /destinations\.pagerduty_events\.url/,
    );
  });
});
