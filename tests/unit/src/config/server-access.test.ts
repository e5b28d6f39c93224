import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/config/load-config.js';
import { apiTokensOf, isLoopback, listenHost } from '../../../../src/config/server-access.js';
import { configSecrets } from '../../../../src/config/secrets.js';
import { ConfigError } from '../../../../src/errors.js';
import { sources } from '../../../../sources/index.js';

const server = (env: Record<string, string>) => loadConfig(env, undefined, sources).server;

describe('where serve and worker listen', () => {
  it('on loopback only when HOST is unset and no API token is configured', () => {
    expect(listenHost(server({}), 'serve')).toBe('127.0.0.1');
    expect(listenHost(server({}), 'worker')).toBe('127.0.0.1');
  });

  it('on every interface when HOST is unset and a token is configured, or the operator opens it on purpose', () => {
    expect(listenHost(server({ LESTRADE_API_TOKEN: 'tok-a' }), 'serve')).toBe('0.0.0.0');
    expect(listenHost(server({ LESTRADE_API_TOKENS: 'alice:tok-a' }), 'serve')).toBe('0.0.0.0');
    expect(listenHost(server({ LESTRADE_ALLOW_UNAUTHENTICATED: 'true' }), 'serve')).toBe('0.0.0.0');
  });

  it('refuses serve on a non-loopback HOST with no token, naming every way out', () => {
    for (const host of ['0.0.0.0', '::', '10.1.2.3', 'lestrade.example.com']) {
      const refused = () => listenHost(server({ HOST: host }), 'serve');
      expect(refused).toThrow(ConfigError);
      expect(refused).toThrow(`HOST=${host} with no API token`);
      expect(refused).toThrow(/LESTRADE_API_TOKENS=<name>:<token>.*LESTRADE_ALLOW_UNAUTHENTICATED=true.*unset HOST/);
    }
  });

  it('takes an explicit HOST as given once a token or the opt-in says so, and a loopback HOST always', () => {
    expect(listenHost(server({ HOST: '0.0.0.0', LESTRADE_API_TOKEN: 'tok-a' }), 'serve')).toBe('0.0.0.0');
    expect(listenHost(server({ HOST: '0.0.0.0', LESTRADE_ALLOW_UNAUTHENTICATED: '1' }), 'serve')).toBe('0.0.0.0');
    expect(listenHost(server({ HOST: '127.0.0.2' }), 'serve')).toBe('127.0.0.2');
    expect(listenHost(server({ HOST: '::1' }), 'serve')).toBe('::1');
  });

  it("lets the worker's probe server (nothing that changes state) listen anywhere", () => {
    expect(listenHost(server({ HOST: '0.0.0.0' }), 'worker')).toBe('0.0.0.0');
  });

  it('knows loopback addresses from the rest', () => {
    for (const h of ['127.0.0.1', '127.8.9.10', '::1', '[::1]', 'localhost', 'LOCALHOST', '::ffff:127.0.0.1'])
      expect(isLoopback(h), h).toBe(true);
    for (const h of [
      '0.0.0.0',
      '::',
      '10.0.0.1',
      '128.0.0.1',
      '::ffff:10.0.0.1',
      'localhost.example.com',
      '127.example',
    ])
      expect(isLoopback(h), h).toBe(false);
  });
});

describe('named API tokens', () => {
  it('reads LESTRADE_API_TOKENS as name:token pairs (the token may hold colons) and names the old form token-1, ...', () => {
    const s = server({ LESTRADE_API_TOKENS: 'alice:tok:a, bob:tok-b', LESTRADE_API_TOKEN: 'old-1,old-2' });
    expect(apiTokensOf(s)).toEqual([
      { name: 'alice', token: 'tok:a' },
      { name: 'bob', token: 'tok-b' },
      { name: 'token-1', token: 'old-1' },
      { name: 'token-2', token: 'old-2' },
    ]);
  });

  it('reads server.apiTokens from the file as {name, token} or "name:token"', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'lestrade-cfg-')), 'lestrade.yaml');
    writeFileSync(path, 'server:\n  apiTokens:\n    - { name: alice, token: tok-a }\n    - "bob:tok-b"\n');
    const s = loadConfig({}, path, sources).server;
    expect(apiTokensOf(s)).toEqual([
      { name: 'alice', token: 'tok-a' },
      { name: 'bob', token: 'tok-b' },
    ]);
  });

  it('refuses an entry without a name, a repeated name or token, and says which variable, never the token', () => {
    expect(() => server({ LESTRADE_API_TOKENS: 'no-name-here' })).toThrow(
      /LESTRADE_API_TOKENS.*expected <name>:<token>/,
    );
    expect(() => server({ LESTRADE_API_TOKENS: ':secret-x' })).toThrow(/expected <name>:<token>/);
    expect(() => server({ LESTRADE_API_TOKENS: 'a b:secret-x' })).toThrow(/expected <name>:<token>/);
    expect(() => server({ LESTRADE_API_TOKENS: 'alice:secret-x,alice:secret-y' })).toThrow(
      /the name "alice" is given twice/,
    );
    let message = '';
    try {
      server({ LESTRADE_API_TOKENS: 'alice:secret-x,bob:secret-x' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/this token is given twice/);
    expect(message).not.toContain('secret-x');
  });

  it('refuses a named token called like an unnamed one', () => {
    const s = server({ LESTRADE_API_TOKENS: 'token-1:tok-a', LESTRADE_API_TOKEN: 'tok-b' });
    expect(() => apiTokensOf(s)).toThrow(/names a token "token-1"/);
  });

  it('counts a token given in both forms once, under its name', () => {
    const s = server({ LESTRADE_API_TOKENS: 'alice:tok-a', LESTRADE_API_TOKEN: 'tok-a,tok-b' });
    expect(apiTokensOf(s)).toEqual([
      { name: 'alice', token: 'tok-a' },
      { name: 'token-2', token: 'tok-b' },
    ]);
  });

  it('redacts the tokens, not their names', () => {
    const secrets = configSecrets(loadConfig({ LESTRADE_API_TOKENS: 'alice:tok-aaaa' }, undefined, sources));
    expect(secrets).toContain('tok-aaaa');
    expect(secrets).not.toContain('alice');
  });
});
