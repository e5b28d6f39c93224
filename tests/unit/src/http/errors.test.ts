import { Redis, ReplyError } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InputError } from '../../../../src/errors.js';
import { checkAuthorization } from '../../../../src/check-credentials.js';
import { readJson } from '../../../../src/read-json.js';
import { isRedisUnavailable } from '../../../../src/http/redis-unavailable.js';
import { withUrlAuthorization } from '../../../../src/outbound-http/url-credentials.js';
import { freePort } from '../../../helpers/free-port.js';
import { thrownBy } from '../../../helpers/failure-of.js';

const basic = (userAndPassword: string) => `Basic ${Buffer.from(userAndPassword).toString('base64')}`;
const rejection = (p: Promise<unknown>): Promise<Error> =>
  p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: Error) => e,
  );

describe('checkAuthorization with basic auth', () => {
  const creds = { bearerTokens: [], basic: { username: 'u', password: 'p' } };

  it('takes only the Basic scheme: the same credentials under another scheme are refused', () => {
    const encoded = Buffer.from('u:p').toString('base64');
    expect(checkAuthorization(`Basic ${encoded}`, creds)).toBe(true);
    for (const scheme of ['Digest', 'Token', 'Basics', 'Bearer'])
      expect(checkAuthorization(`${scheme} ${encoded}`, creds), scheme).toBe(false);
  });

  it('refuses a value without a colon even when it starts with the user and is the password', () => {
    // "abcd" split nowhere would be user "abc" and password "abcd".
    expect(checkAuthorization(basic('abcd'), { bearerTokens: [], basic: { username: 'abc', password: 'abcd' } })).toBe(
      false,
    );
    expect(
      checkAuthorization(basic('abc:abcd'), { bearerTokens: [], basic: { username: 'abc', password: 'abcd' } }),
    ).toBe(true);
  });

  it('checks an empty user name like any other', () => {
    const noUser = { bearerTokens: [], basic: { username: '', password: 'pw' } };
    expect(checkAuthorization(basic(':pw'), noUser)).toBe(true);
    expect(checkAuthorization(basic('x:pw'), noUser)).toBe(false);
  });
});

describe('withUrlAuthorization', () => {
  it('keeps an explicit Authorization header among others', () => {
    const headers = { accept: 'application/json', Authorization: 'Bearer t', 'x-scope-orgid': 'a' };
    expect(withUrlAuthorization(headers, 'Basic abc')).toBe(headers);
  });
});

describe('readJson', () => {
  it('names a field whose key holds ": " and keeps the message whole', () => {
    const schema = z.object({ labels: z.record(z.string(), z.string()) });
    const err = thrownBy(() => readJson({ labels: { 'team: a': 5 } }, schema)) as InputError;
    expect(err).toBeInstanceOf(InputError);
    expect(err).toMatchObject({
      field: 'labels.team: a',
      message: 'labels.team: a: Invalid input: expected string, received number',
    });
  });

  it('lists the other issues after the first', () => {
    const schema = z.object({ a: z.string(), b: z.number() });
    const err = thrownBy(() => readJson({ a: 1, b: 'x' }, schema)) as InputError;
    expect(err.message).toBe(
      'a: Invalid input: expected string, received number; b: Invalid input: expected number, received string',
    );
  });
});

describe('isRedisUnavailable', () => {
  it('recognises what ioredis rejects commands with when Redis cannot be reached', async () => {
    const port = await freePort();
    // Closed by us: "Connection is closed."
    const closed = new Redis(`redis://127.0.0.1:${port}`, { lazyConnect: true });
    closed.disconnect();
    const e1 = await rejection(closed.get('k'));
    expect(e1.message).toBe('Connection is closed.');
    // Retries given up: MaxRetriesPerRequestError.
    const retrying = new Redis(`redis://127.0.0.1:${port}`, { maxRetriesPerRequest: 0, retryStrategy: () => 50 });
    retrying.on('error', () => {});
    const e2 = await rejection(retrying.get('k'));
    retrying.disconnect();
    expect(e2.name).toBe('MaxRetriesPerRequestError');
    for (const err of [e1, e2]) expect(isRedisUnavailable(err), err.message).toBe(true);
  });

  it('recognises each of them by message or name, and nothing else', () => {
    for (const message of [
      "Stream isn't writeable and enableOfflineQueue options is false",
      'Connection is closed.',
      'Command timed out',
      'Command aborted due to connection close',
      "Cluster isn't ready and enableOfflineQueue options is false",
      'None of startup nodes is available',
      'Cluster is disconnected.',
    ]) {
      expect(isRedisUnavailable(new Error(message)), message).toBe(true);
      expect(isRedisUnavailable(new Error(`${message}!`)), `${message}!`).toBe(false);
    }
    for (const name of ['MaxRetriesPerRequestError', 'ClusterAllFailedError']) {
      expect(isRedisUnavailable(Object.assign(new Error('x'), { name })), name).toBe(true);
    }
    expect(isRedisUnavailable(Object.assign(new Error('x'), { name: 'TypeError' }))).toBe(false);
    expect(isRedisUnavailable(new Error(''))).toBe(false);
  });

  it('takes a reply as "cannot store now" only when it starts with one of those states', () => {
    for (const reply of [
      'BUSY Redis is busy running a script',
      'TRYAGAIN Multiple keys request during rehashing of slot',
      'CLUSTERDOWN The cluster is down',
      'NOREPLICAS Not enough good replicas to write',
      'MISCONF Redis is configured to save RDB snapshots, but it is currently not able to persist on disk',
      'NOAUTH Authentication required.',
      'WRONGPASS invalid username-password pair or user is disabled.',
      'ERR max number of clients reached',
    ]) {
      expect(isRedisUnavailable(new ReplyError(reply)), reply).toBe(true);
    }
    for (const reply of [
      "ERR unknown command 'LOADING'",
      'WRONGTYPE Operation against a key holding the wrong kind of value',
      'ERR syntax error',
      'LOADINGX',
      'ERR Error running script: OOMish',
    ]) {
      expect(isRedisUnavailable(new ReplyError(reply)), reply).toBe(false);
    }
  });
});
