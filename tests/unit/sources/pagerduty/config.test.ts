import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/config/load-config.js';
import { configSecrets } from '../../../../src/config/secrets.js';
import { createLogger } from '../../../../src/log.js';
import { apiBaseOf, type PagerDutyConfig } from '../../../../sources/pagerduty/config.js';
import { pagerduty } from '../../../../sources/pagerduty/index.js';

const load = (env: Record<string, string>, yaml?: string) => {
  let path: string | undefined;
  if (yaml) {
    path = join(mkdtempSync(join(tmpdir(), 'lestrade-pd-')), 'config.yaml');
    writeFileSync(path, yaml);
  }
  return loadConfig(env, path, [pagerduty]);
};
const slice = (env: Record<string, string>, yaml?: string) => load(env, yaml).sources.pagerduty as PagerDutyConfig;
const ctx = { log: createLogger('silent'), env: {} };

describe('sources.pagerduty config', () => {
  it('reads the environment, with safe defaults: high urgency only, any service and priority, write-back on', () => {
    const c = slice({
      PAGERDUTY_API_KEY: 'u+key',
      PAGERDUTY_FROM_EMAIL: 'bot@acme.example',
      PAGERDUTY_WEBHOOK_SECRET: 'a,b',
    });
    expect(c).toMatchObject({
      apiKey: 'u+key',
      fromEmail: 'bot@acme.example',
      webhookSecret: 'a,b',
      region: 'us',
      writeBack: true,
      noteLimit: 25_000,
      triggers: { services: [], urgencies: ['high'], priorities: [] },
    });
    expect(pagerduty.disabledReason(c)).toBeNull();
    expect(pagerduty.warnings?.(c)).toEqual([]);
    expect(pagerduty.writer?.(c, ctx)).not.toBeNull();
  });

  it('is off without an API key, and says so', () => {
    expect(pagerduty.disabledReason(slice({}))).toBe('no PAGERDUTY_API_KEY');
  });

  it('warns that a missing webhook secret refuses every delivery, and has no writer without a From email', () => {
    const c = slice({ PAGERDUTY_API_KEY: 'k' });
    expect(pagerduty.webhookWarnings?.(c)).toEqual([
      expect.stringMatching(/^no PAGERDUTY_WEBHOOK_SECRET set: \/webhooks\/pagerduty refuses every delivery/),
    ]);
    expect(pagerduty.warnings?.(c)).toEqual([
      expect.stringMatching(/^no PAGERDUTY_FROM_EMAIL set: RCAs are not written back/),
    ]);
    expect(pagerduty.writer?.(c, ctx)).toBeNull();
    const off = slice(
      { PAGERDUTY_API_KEY: 'k', PAGERDUTY_FROM_EMAIL: 'bot@acme.example' },
      'sources:\n  pagerduty:\n    writeBack: false\n',
    );
    expect(pagerduty.writer?.(off, ctx)).toBeNull();
  });

  it("picks the region's API, or PAGERDUTY_API_URL (a double, a proxy)", () => {
    expect(apiBaseOf(slice({}))).toBe('https://api.pagerduty.com');
    expect(apiBaseOf(slice({ PAGERDUTY_REGION: 'eu' }))).toBe('https://api.eu.pagerduty.com');
    expect(apiBaseOf(slice({ PAGERDUTY_REGION: 'eu', PAGERDUTY_API_URL: 'http://127.0.0.1:9999/' }))).toBe(
      'http://127.0.0.1:9999',
    );
  });

  it('takes triggers from the file; errors name the key', () => {
    const c = slice(
      {},
      'sources:\n  pagerduty:\n    triggers: { services: [PIJ90N7], urgencies: [high, low], priorities: [P1, P2] }\n',
    );
    expect(c.triggers).toEqual({ services: ['PIJ90N7'], urgencies: ['high', 'low'], priorities: ['P1', 'P2'] });
    expect(() => slice({ PAGERDUTY_FROM_EMAIL: 'not an email' })).toThrow(/sources\.pagerduty\.fromEmail/);
    expect(() => slice({ PAGERDUTY_REGION: 'ap' })).toThrow(/sources\.pagerduty\.region/);
    expect(() => slice({}, 'sources:\n  pagerduty:\n    triggers: { services: [my-service] }\n')).toThrow(
      /sources\.pagerduty\.triggers\.services\.0: must be a PagerDuty service id/,
    );
    expect(() => slice({}, 'sources:\n  pagerduty:\n    triggers: { urgencies: [] }\n')).toThrow(
      /sources\.pagerduty\.triggers\.urgencies/,
    );
    expect(() => slice({}, 'sources:\n  pagerduty:\n    triggers: { urgency: [high] }\n')).toThrow(
      /sources\.pagerduty\.triggers: Unrecognized key: "urgency"/,
    );
  });

  it('the API key and every webhook secret are secrets: redacted from logs and records', () => {
    const secrets = configSecrets(
      load({ PAGERDUTY_API_KEY: 'u+key-123', PAGERDUTY_WEBHOOK_SECRET: 'whsec-old, whsec-new' }),
    );
    expect(secrets).toEqual(expect.arrayContaining(['u+key-123', 'whsec-old', 'whsec-new']));
  });
});
