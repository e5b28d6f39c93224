import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/config/load-config.js';
import { ConfigError } from '../../../../src/errors.js';
import { describeConfigIssues } from '../../../../src/config/config-issues.js';
import { sources } from '../../../../sources/index.js';
import { toolsets } from '../../../../toolsets/index.js';

const file = (text: string) => {
  const p = join(mkdtempSync(join(tmpdir(), 'lestrade-cfg-')), 'lestrade.yaml');
  writeFileSync(p, text);
  return p;
};

describe('loadConfig', () => {
  it('has working defaults with an empty environment', () => {
    const c = loadConfig({}, undefined, sources);
    expect(c.server.port).toBe(8080);
    expect(c.llm).toMatchObject({ model: 'gpt-4o', maxSteps: 40 });
    expect(c.llm.apiKey).toBeUndefined();
    expect(c.redis.url).toBeUndefined();
    expect(c.sources.alertmanager).toMatchObject({ maxAlertsPerDelivery: 1000 });
  });

  it('reads the basics from the environment', () => {
    const c = loadConfig(
      {
        PORT: '9000',
        REDIS_URL: 'redis://r:6379',
        OPENAI_API_KEY: 'sk-x',
        OPENAI_BASE_URL: 'http://llm:8000/v1',
        LESTRADE_MODEL: 'llama3',
        PROMETHEUS_URL: 'http://prom:9090',
        ALERTMANAGER_WEBHOOK_TOKEN: 'tok',
      },
      undefined,
      sources,
      [],
      toolsets,
    );
    expect(c).toMatchObject({
      server: { port: 9000 },
      redis: { url: 'redis://r:6379' },
      llm: { apiKey: 'sk-x', baseUrl: 'http://llm:8000/v1', model: 'llama3' },
      toolsets: { prometheus: { url: 'http://prom:9090' } },
      sources: { alertmanager: { bearerToken: 'tok' } },
    });
  });

  it('merges a YAML file, with the environment winning', () => {
    const p = file('llm:\n  model: from-file\n  maxSteps: 12\nqueue:\n  concurrency: 8\n');
    const c = loadConfig({ LESTRADE_MODEL: 'from-env' }, p);
    expect(c.llm).toMatchObject({ model: 'from-env', maxSteps: 12 });
    expect(c.queue.concurrency).toBe(8);
    expect(loadConfig({ LESTRADE_CONFIG: p }).queue.concurrency).toBe(8);
  });

  it('names the key and the reason when a value is bad', () => {
    expect(() => loadConfig({}, file('queue:\n  concurrency: 0\n'))).toThrow(/queue\.concurrency: .*>=1/);
    expect(() => loadConfig({}, file('llm:\n  modle: x\n'))).toThrow(/llm: Unrecognized key: "modle"/);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT: expected an integer, got "eighty"/);
    expect(() => loadConfig({ REDIS_URL: 'localhost:6379' })).toThrow(/redis\.url: must start with redis:\/\//);
    expect(() => loadConfig({}, file('- a\n- b\n'))).toThrow(ConfigError);
    expect(() => loadConfig({}, '/nonexistent/lestrade.yaml')).toThrow(/cannot read config file/);
  });

  it('never puts a secret value in its error messages', () => {
    try {
      loadConfig({ OPENAI_API_KEY: 'sk-very-secret', OPENAI_BASE_URL: 'not a url' });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).toMatch(/llm\.baseUrl/);
      expect((err as Error).message).not.toContain('sk-very-secret');
    }
  });

  it("validates each registered source's slice with the rest, naming the key", () => {
    expect(() => loadConfig({}, file('sources:\n  alertmanager:\n    url: not-a-url\n'), sources)).toThrow(
      /sources\.alertmanager\.url/,
    );
    expect(() => loadConfig({}, file('sources:\n  nosuch: {}\n'), sources)).toThrow(
      /sources: Unrecognized key: "nosuch"/,
    );
    expect(loadConfig({ ALERTMANAGER_URL: 'http://am:9093' }, undefined, sources).sources.alertmanager).toMatchObject({
      url: 'http://am:9093',
    });
  });
});

describe('where a bad value came from', () => {
  it('names the environment variable and its value when one set it', () => {
    expect(() => loadConfig({ REDIS_URL: 'localhost:6379' })).toThrow(
      /REDIS_URL=localhost:6379 sets redis\.url: must start/,
    );
    expect(() => loadConfig({ LESTRADE_CONCURRENCY: '0' }, file('queue:\n  concurrency: 4\n'))).toThrow(
      /LESTRADE_CONCURRENCY=0 sets queue\.concurrency: /,
    );
    expect(() => loadConfig({ ALERTMANAGER_URL: 'nope' }, undefined, sources)).toThrow(
      /ALERTMANAGER_URL=nope sets sources\.alertmanager\.url: /,
    );
  });

  it('names the file and the key when the file set it', () => {
    const p = file('queue:\n  concurrency: 0\n');
    expect(() => loadConfig({}, p)).toThrow(`${p}: queue.concurrency: `);
    expect(() => loadConfig({ LESTRADE_MODEL: 'm' }, p)).not.toThrow(/LESTRADE_MODEL/);
  });

  it('never quotes the value of a credential variable, nor a URL password', () => {
    const origins = [{ name: 'JIRA_API_TOKEN', value: 'tok-secret', path: ['sources', 'jira', 'apiToken'] }];
    const line = describeConfigIssues([{ path: ['sources', 'jira', 'apiToken'], message: 'too short' }], origins);
    expect(line).toBe('JIRA_API_TOKEN sets sources.jira.apiToken: too short');
    expect(() => loadConfig({ OPENAI_BASE_URL: 'http://u:hunter2@llm:99999/v1' })).toThrow(
      /OPENAI_BASE_URL=http:\/\/u:/,
    );
    expect(() => loadConfig({ OPENAI_BASE_URL: 'http://u:hunter2@llm:99999/v1' })).not.toThrow(/hunter2/);
  });
});

describe('the Loki and github_changes toolsets from the environment', () => {
  it('reads LOKI_URL, LOKI_TENANT, LOKI_TOKEN, GITHUB_TOKEN and LESTRADE_GITHUB_CHANGES_REPOS; the tokens are secrets', async () => {
    const { configSecrets } = await import('../../../../src/config/secrets.js');
    const config = loadConfig(
      {
        LOKI_URL: 'http://loki:3100',
        LOKI_TENANT: 'team-a',
        LOKI_TOKEN: 'loki-tok-123',
        GITHUB_TOKEN: 'ghp_tok456',
        LESTRADE_GITHUB_CHANGES_REPOS: 'acme/shop, acme/api',
      },
      undefined,
      sources,
      [],
      toolsets,
    );
    expect(config.toolsets.loki).toMatchObject({
      url: 'http://loki:3100',
      tenant: 'team-a',
      bearerToken: 'loki-tok-123',
    });
    expect(config.toolsets.github_changes).toEqual({
      repos: ['acme/shop', 'acme/api'],
      token: 'ghp_tok456',
      apiUrl: 'https://api.github.com',
    });
    expect(configSecrets(config)).toEqual(expect.arrayContaining(['loki-tok-123', 'ghp_tok456']));
  });

  it('names the variable of a repository that is not owner/name', () => {
    expect(() => loadConfig({ LESTRADE_GITHUB_CHANGES_REPOS: 'shop' }, undefined, sources, [], toolsets)).toThrow(
      /LESTRADE_GITHUB_CHANGES_REPOS.*owner\/name/,
    );
  });
});
