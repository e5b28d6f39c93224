import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { checkAuthorization } from '../../src/http/check-credentials.js';
import { normaliseSeverity } from '../../src/issue.js';
import { createLogger } from '../../src/log.js';

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
    const log = createLogger('info', new Writable({ write(c: Buffer, _e, cb) { out += c.toString(); cb(); } }));
    log.info({ llm: { apiKey: 'sk-secret-1' }, headers: { authorization: 'Bearer tok-2' }, sources: { alertmanager: { bearerToken: 'tok-3', basicAuth: { password: 'pw-4' } } } }, 'config');
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
