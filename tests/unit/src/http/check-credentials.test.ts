import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InputError } from '../../../../src/errors.js';
import { authorizationProblem, checkAuthorization, splitTokens } from '../../../../src/check-credentials.js';
import { parseJsonBody } from '../../../../src/http/read-json-body.js';
import { readJson } from '../../../../src/read-json.js';
import { splitUrlCredentials, withUrlAuthorization } from '../../../../src/outbound-http/url-credentials.js';
import { thrownBy } from '../../../helpers/failure-of.js';

const basic = (userAndPassword: string) => `Basic ${Buffer.from(userAndPassword).toString('base64')}`;

describe('splitTokens', () => {
  it('splits a comma-separated list, trimming and dropping empty entries', () => {
    expect(splitTokens(' a, b ,,c ,')).toEqual(['a', 'b', 'c']);
    expect(splitTokens('only')).toEqual(['only']);
    expect(splitTokens('')).toEqual([]);
    expect(splitTokens(' , ')).toEqual([]);
    expect(splitTokens(undefined)).toEqual([]);
  });
});

describe('checkAuthorization', () => {
  it('lets everything through when nothing is configured, whatever the header', () => {
    expect(checkAuthorization(undefined, { bearerTokens: [] })).toBe(true);
    expect(checkAuthorization('Bearer anything', { bearerTokens: [] })).toBe(true);
  });

  it('requires a header as soon as either kind of credential is configured', () => {
    expect(checkAuthorization(undefined, { bearerTokens: ['t'] })).toBe(false);
    expect(checkAuthorization(undefined, { bearerTokens: [], basic: { username: 'u', password: 'p' } })).toBe(false);
    expect(checkAuthorization('', { bearerTokens: [], basic: { username: 'u', password: 'p' } })).toBe(false);
  });

  it('takes basic auth only when basic auth is configured, and bearer only when tokens are', () => {
    const onlyBasic = { bearerTokens: [], basic: { username: 'u', password: 'p' } };
    expect(checkAuthorization(basic('u:p'), onlyBasic)).toBe(true);
    expect(checkAuthorization('BASIC ' + Buffer.from('u:p').toString('base64'), onlyBasic)).toBe(true);
    expect(checkAuthorization('Bearer u:p', onlyBasic)).toBe(false);
    expect(checkAuthorization(basic('u:p'), { bearerTokens: ['dTpw'] })).toBe(false);
  });

  it('refuses basic credentials without a colon, or with the user and password the wrong way round', () => {
    const creds = { bearerTokens: [], basic: { username: 'user', password: 'pass' } };
    expect(checkAuthorization(basic('userpass'), creds)).toBe(false);
    expect(checkAuthorization(basic('pass:user'), creds)).toBe(false);
    expect(checkAuthorization(basic(':pass'), creds)).toBe(false);
    expect(checkAuthorization(basic('user:'), creds)).toBe(false);
    expect(checkAuthorization(basic('user:pass:'), creds)).toBe(false);
    expect(checkAuthorization(basic('user:pass'), creds)).toBe(true);
  });

  it('compares whole tokens: a prefix or an extension of a token is not the token', () => {
    const creds = { bearerTokens: ['secret'] };
    expect(checkAuthorization('Bearer secre', creds)).toBe(false);
    expect(checkAuthorization('Bearer secrets', creds)).toBe(false);
    expect(checkAuthorization('Bearer SECRET', creds)).toBe(false);
    expect(checkAuthorization('Token secret', creds)).toBe(false);
    expect(checkAuthorization('Bearer\tsecret', creds)).toBe(true);
  });
});

describe('splitUrlCredentials', () => {
  it('moves a user and password out of the URL into basic auth, decoded, and blanks the password for display', () => {
    expect(splitUrlCredentials('http://reader:p%40ss%3Aw@prom:9090/api')).toEqual({
      url: 'http://prom:9090/api',
      display: 'http://reader:***@prom:9090/api',
      authorization: basic('reader:p@ss:w'),
    });
  });

  it('handles a user without a password, and a password without a user', () => {
    expect(splitUrlCredentials('http://token@host/')).toEqual({
      url: 'http://host/',
      display: 'http://token@host/',
      authorization: basic('token:'),
    });
    expect(splitUrlCredentials('http://:pw@host/')).toEqual({
      url: 'http://host/',
      display: 'http://:***@host/',
      authorization: basic(':pw'),
    });
  });

  it('keeps undecodable percent-escapes as they are', () => {
    expect(splitUrlCredentials('http://u%zz:p%e0@host/').authorization).toBe(basic('u%zz:p%e0'));
  });

  it('leaves a URL without credentials as it is, and an unparseable one unshown', () => {
    expect(splitUrlCredentials('http://host:1/x?y=1')).toEqual({
      url: 'http://host:1/x?y=1',
      display: 'http://host:1/x?y=1',
    });
    expect(splitUrlCredentials('not a url')).toEqual({ url: 'not a url', display: '(unparseable URL)' });
  });
});

describe('withUrlAuthorization', () => {
  it("adds the URL's basic auth to the headers", () => {
    expect(withUrlAuthorization({ accept: 'x' }, 'Basic abc')).toEqual({ authorization: 'Basic abc', accept: 'x' });
  });

  it('keeps an Authorization header set explicitly, in any case', () => {
    expect(withUrlAuthorization({ Authorization: 'Bearer t' }, 'Basic abc')).toEqual({ Authorization: 'Bearer t' });
    expect(withUrlAuthorization({ AUTHORIZATION: 'Bearer t' }, 'Basic abc')).toEqual({ AUTHORIZATION: 'Bearer t' });
  });

  it('returns the headers unchanged when the URL had no credentials', () => {
    const headers = { accept: 'x' };
    expect(withUrlAuthorization(headers, undefined)).toBe(headers);
  });
});

describe('parseJsonBody', () => {
  it('parses JSON in UTF-8', () => {
    expect(parseJsonBody(Buffer.from('{"a":"é","b":[1]}'))).toEqual({ a: 'é', b: [1] });
  });

  it('refuses an empty body and a body that is not JSON, with InputErrors for the whole body', () => {
    const empty = thrownBy(() => parseJsonBody(Buffer.alloc(0))) as InputError;
    expect(empty).toBeInstanceOf(InputError);
    expect(empty).toMatchObject({ field: '', message: 'request body is empty; expected JSON' });
    const bad = thrownBy(() => parseJsonBody(Buffer.from('{"a":'))) as InputError;
    expect(bad).toBeInstanceOf(InputError);
    expect(bad.field).toBe('');
    expect(bad.message).toMatch(/^request body is not valid JSON: .+/);
  });
});

describe('readJson', () => {
  const schema = z.object({
    alerts: z.array(z.object({ fingerprint: z.string().regex(/^[0-9a-f]{16}$/, 'must be 16 hex digits') })),
  });

  it('returns the parsed value when it fits the schema', () => {
    expect(readJson({ alerts: [{ fingerprint: '0123456789abcdef' }] }, schema)).toEqual({
      alerts: [{ fingerprint: '0123456789abcdef' }],
    });
  });

  it('names the first offending field, and says what is wrong without repeating the path', () => {
    const err = thrownBy(() => readJson({ alerts: [{ fingerprint: 'x' }] }, schema)) as InputError;
    expect(err).toBeInstanceOf(InputError);
    expect(err).toMatchObject({
      field: 'alerts.0.fingerprint',
      message: 'alerts.0.fingerprint: must be 16 hex digits',
    });
  });

  it('names no field when the document itself is wrong', () => {
    const err = thrownBy(() => readJson('text', schema)) as InputError;
    expect(err.field).toBe('');
    expect(err.message).toBe('Invalid input: expected object, received string');
  });
});

// Issue 16, defect 12: a rejected delivery logged only "unauthorized". The reason says missing
// versus wrong credentials, and never carries the credential. This test failed before the fix.
describe('authorizationProblem', () => {
  const creds = { bearerTokens: ['s3cret-token'], basic: { username: 'am', password: 'pa55word' } };

  it('says what is wrong without quoting the header', () => {
    expect(authorizationProblem(undefined, creds)).toBe('missing credentials: no Authorization header');
    expect(authorizationProblem('', creds)).toBe('missing credentials: no Authorization header');
    expect(authorizationProblem('Bearer wrong-token', creds)).toBe(
      'wrong credentials: the bearer token matches none configured',
    );
    expect(authorizationProblem(basic('am:nope'), creds)).toBe('wrong credentials: basic-auth user or password');
    expect(authorizationProblem(basic('am'), creds)).toBe('malformed credentials: basic auth without a colon');
    expect(authorizationProblem('Bearer a b', creds)).toBe(
      'malformed credentials: Authorization is not "<scheme> <credentials>"',
    );
    expect(authorizationProblem('Digest s3cret-token', creds)).toBe(
      'wrong credentials: an unsupported scheme (Bearer or Basic expected)',
    );
    expect(authorizationProblem(basic('am:pa55word'), { bearerTokens: ['t'] })).toBe(
      'wrong credentials: basic auth is not configured',
    );
  });

  it('is null exactly when checkAuthorization passes', () => {
    for (const h of [undefined, 'Bearer s3cret-token', basic('am:pa55word'), 'Bearer x', basic('x:y')]) {
      expect(authorizationProblem(h, creds) === null).toBe(checkAuthorization(h, creds));
    }
    expect(authorizationProblem(undefined, { bearerTokens: [] })).toBeNull();
  });
});
