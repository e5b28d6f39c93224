import { Writable } from 'node:stream';
import { sources } from '../../../sources/index.js';
import { toolsets } from '../../../toolsets/index.js';
import { describe, expect, it } from 'vitest';
import { checkAuthorization } from '../../../src/check-credentials.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { configSecrets, redactorFromConfig } from '../../../src/config/secrets.js';
import { normaliseSeverity } from '../../../src/issue.js';
import { createLogger } from '../../../src/log.js';

describe('checkAuthorization', () => {
  const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

  it('accepts any of several bearer tokens (rotation) and nothing else', () => {
    const creds = { bearerTokens: ['old', 'new'] };
    expect(checkAuthorization('Bearer old', creds)).toBe(true);
    expect(checkAuthorization('bearer new', creds)).toBe(true);
    expect(checkAuthorization('Bearer other', creds)).toBe(false);
    expect(checkAuthorization(undefined, creds)).toBe(false);
    expect(checkAuthorization(basic('u', 'old'), creds)).toBe(false);
  });

  it('refuses anything around the credentials: "Bearer <token> junk", no scheme, a doubled scheme', () => {
    const creds = { bearerTokens: ['old'] };
    expect(checkAuthorization('Bearer old junk', creds)).toBe(false);
    expect(checkAuthorization('Bearer old old', creds)).toBe(false);
    expect(checkAuthorization('old', creds)).toBe(false);
    expect(checkAuthorization('Bearer Bearer old', creds)).toBe(false);
    expect(checkAuthorization('  Bearer   old  ', creds)).toBe(true);
  });

  it('accepts basic auth as Alertmanager sends it', () => {
    const creds = { bearerTokens: [], basic: { username: 'am', password: 'p:w' } };
    expect(checkAuthorization(basic('am', 'p:w'), creds)).toBe(true);
    expect(checkAuthorization(basic('am', 'nope'), creds)).toBe(false);
    expect(checkAuthorization(basic('xx', 'p:w'), creds)).toBe(false);
  });
});

describe('logger', () => {
  it('redacts secrets wherever they sit in a log object', () => {
    let out = '';
    const log = createLogger(
      'info',
      new Writable({
        write(c: Buffer, _e, cb) {
          out += c.toString();
          cb();
        },
      }),
    );
    log.info(
      {
        llm: { apiKey: 'sk-secret-1' },
        headers: { authorization: 'Bearer tok-2' },
        sources: { alertmanager: { bearerToken: 'tok-3', basicAuth: { password: 'pw-4' } } },
      },
      'config',
    );
    for (const s of ['sk-secret-1', 'tok-2', 'tok-3', 'pw-4']) expect(out).not.toContain(s);
    expect(out).toContain('[redacted]');
  });
});

describe('vendor strings used as keys', () => {
  it('map severities by own entries only: Object.prototype names are unknown words', () => {
    for (const word of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', ' Constructor ']) {
      expect(normaliseSeverity(word)).toBe('unknown');
    }
    expect(normaliseSeverity(' Page ')).toBe('critical');
  });
});

describe('secrets from the configuration', () => {
  const config = loadConfig(
    {
      OPENAI_API_KEY: 'sk-llm-key-1',
      LESTRADE_API_TOKEN: 'api-old-2, api-new-3',
      ALERTMANAGER_WEBHOOK_TOKEN: 'hook-4',
      REDIS_URL: 'redis://:redis-pw-5@r:6379',
      PROMETHEUS_URL: 'http://u:prom%2Fpw-6@p:9090',
      OPENAI_BASE_URL: 'http://llm:8000/v1',
      GITHUB_TOKEN: 'ghp-10',
      GITHUB_WEBHOOK_SECRET: 'gh-hook-11',
      JIRA_PAT: 'jira-pat-12',
      JIRA_API_TOKEN: 'jira-tok-13',
    },
    undefined,
    sources,
    [],
    toolsets,
  );
  (config.sources.alertmanager as { basicAuth?: unknown }).basicAuth = { username: 'am', password: 'basic-pw-7' };
  (config.toolsets.prometheus as { headers: Record<string, string> }).headers = {
    authorization: 'Bearer prom-header-8',
    'x-scope-orgid': 'tenant-9',
  };

  it('are found wherever they sit, token lists one by one, URL passwords as written and decoded', () => {
    const found = configSecrets(config);
    for (const s of [
      'sk-llm-key-1',
      'api-old-2',
      'api-new-3',
      'hook-4',
      'redis-pw-5',
      'prom%2Fpw-6',
      'prom/pw-6',
      'basic-pw-7',
      'prom-header-8',
      'tenant-9',
      'ghp-10',
      'gh-hook-11',
      'jira-pat-12',
      'jira-tok-13',
    ]) {
      expect(found).toContain(s);
    }
    expect(found).not.toContain('gpt-4o');
  });

  it('are redacted from any text, also percent-encoded or JSON-escaped, and from logged lines by value', () => {
    const redact = redactorFromConfig(config);
    expect(redact('401: key sk-llm-key-1 (redis-pw-5) Bearer prom-header-8 prom%2Fpw-6 prom/pw-6')).toBe(
      '401: key [redacted] ([redacted]) [redacted] [redacted] [redacted]',
    );
    expect(redact.deep({ a: ['api-new-3'], b: { c: 'x hook-4' }, n: 1 })).toEqual({
      a: ['[redacted]'],
      b: { c: 'x [redacted]' },
      n: 1,
    });
    let out = '';
    const log = createLogger(
      'info',
      new Writable({
        write(c: Buffer, _e, cb) {
          out += c.toString();
          cb();
        },
      }),
      redact,
    );
    log.error(
      { err: 'LLM answered 401: Incorrect API key provided: sk-llm-key-1', url: 'http://someone:hunter2@host/x' },
      'failed with basic-pw-7',
    );
    expect(out).not.toMatch(/sk-llm-key-1|basic-pw-7|hunter2/);
    expect(JSON.parse(out)).toMatchObject({
      err: 'LLM answered 401: Incorrect API key provided: [redacted]',
      url: 'http://someone:***@host/x',
    });
  });
});
