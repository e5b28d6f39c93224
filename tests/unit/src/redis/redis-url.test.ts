import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../src/errors.js';
import { parseRedisUrl, REDIS_URL_PATTERN } from '../../../../src/redis/redis-url.js';

describe('parseRedisUrl', () => {
  it("hands a single server's URL to ioredis as it is, TLS for rediss://, whatever the scheme's case", () => {
    expect(parseRedisUrl('redis://u:p@host:6380/2')).toEqual({
      kind: 'single',
      url: 'redis://u:p@host:6380/2',
      tls: false,
    });
    expect(parseRedisUrl('rediss://host')).toEqual({ kind: 'single', url: 'rediss://host', tls: true });
    expect(parseRedisUrl('REDIS://host')).toEqual({ kind: 'single', url: 'REDIS://host', tls: false });
  });

  it("lists a cluster's nodes, 6379 where no port is given, IPv6 without brackets", () => {
    expect(parseRedisUrl('redis+cluster://a:7000, b ,[::1]:7002/')).toEqual({
      kind: 'cluster',
      tls: false,
      nodes: [
        { host: 'a', port: 7000 },
        { host: 'b', port: 6379 },
        { host: '::1', port: 7002 },
      ],
    });
    expect(parseRedisUrl('redis+cluster://a:7000//')).toEqual({
      kind: 'cluster',
      tls: false,
      nodes: [{ host: 'a', port: 7000 }],
    });
    expect(parseRedisUrl('rediss+cluster://a:1,,b:65535')).toEqual({
      kind: 'cluster',
      tls: true,
      nodes: [
        { host: 'a', port: 1 },
        { host: 'b', port: 65535 },
      ],
    });
  });

  it("takes a cluster's user and password, percent-decoded, up to the last @", () => {
    expect(parseRedisUrl('redis+cluster://app:p%40ss@w0rd@a:7000')).toEqual({
      kind: 'cluster',
      tls: false,
      username: 'app',
      password: 'p@ss@w0rd',
      nodes: [{ host: 'a', port: 7000 }],
    });
    expect(parseRedisUrl('redis+cluster://:secret@a:7000')).toEqual({
      kind: 'cluster',
      tls: false,
      password: 'secret',
      nodes: [{ host: 'a', port: 7000 }],
    });
    expect(parseRedisUrl('redis+cluster://@a:7000')).toEqual({
      kind: 'cluster',
      tls: false,
      nodes: [{ host: 'a', port: 7000 }],
    });
    expect(parseRedisUrl('redis+cluster://onlyuser@a:7000')).toEqual({
      kind: 'cluster',
      tls: false,
      username: 'onlyuser',
      nodes: [{ host: 'a', port: 7000 }],
    });
    // Not valid percent-encoding: kept as written.
    expect(parseRedisUrl('redis+cluster://u%zz:p%@a')).toMatchObject({ username: 'u%zz', password: 'p%' });
  });

  it('refuses other schemes, a cluster with no node, a node that is not host:port, and ports out of range', () => {
    const refused: Array<[string, string]> = [
      ['http://host', 'REDIS_URL: must start with redis://, rediss://, redis+cluster:// or rediss+cluster://'],
      [' redis://host', 'REDIS_URL: must start with redis://, rediss://, redis+cluster:// or rediss+cluster://'],
      ['redis+cluster://a:1/b:2', 'REDIS_URL: "a:1/b:2" is not host:port'],
      ['host:6379', 'REDIS_URL: must start with redis://, rediss://, redis+cluster:// or rediss+cluster://'],
      ['redis+cluster://', 'REDIS_URL: a cluster URL needs at least one host:port'],
      ['redis+cluster://u:p@ , ', 'REDIS_URL: a cluster URL needs at least one host:port'],
      ['redis+cluster://a:b:c', 'REDIS_URL: "a:b:c" is not host:port'],
      ['redis+cluster://a:70x', 'REDIS_URL: "a:70x" is not host:port'],
      ['redis+cluster://a:0', 'REDIS_URL: port 0 out of range'],
      ['redis+cluster://a:65536', 'REDIS_URL: port 65536 out of range'],
    ];
    for (const [url, message] of refused) {
      expect(() => parseRedisUrl(url), url).toThrow(ConfigError);
      expect(() => parseRedisUrl(url), url).toThrow(message);
    }
  });
});

describe('REDIS_URL_PATTERN', () => {
  it('matches the four schemes at the start only', () => {
    for (const url of ['redis://h', 'rediss://h', 'redis+cluster://h', 'rediss+cluster://h'])
      expect(REDIS_URL_PATTERN.test(url), url).toBe(true);
    for (const url of ['http://h', 'xredis://h', 'redis:/h', 'redis+sentinel://h'])
      expect(REDIS_URL_PATTERN.test(url), url).toBe(false);
  });
});
