import { ConfigError } from '../errors.js';

/**
 * What REDIS_URL names. One server: redis://[user:password@]host:port[/db], or rediss:// for TLS
 * (ioredis parses these itself). A Redis Cluster: redis+cluster://[user:password@]host:port[,host:port...]
 * (rediss+cluster:// for TLS): any reachable nodes; the client discovers the rest.
 */
export type RedisTarget =
  | { kind: 'single'; url: string; tls: boolean }
  | {
      kind: 'cluster';
      nodes: Array<{ host: string; port: number }>;
      username?: string;
      password?: string;
      tls: boolean;
    };

export const REDIS_URL_PATTERN = /^(rediss?|rediss?\+cluster):\/\//;

export function parseRedisUrl(url: string): RedisTarget {
  const scheme = /^([a-z+]+):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'redis' || scheme === 'rediss') return { kind: 'single', url, tls: scheme === 'rediss' };
  if (scheme !== 'redis+cluster' && scheme !== 'rediss+cluster') {
    throw new ConfigError('REDIS_URL: must start with redis://, rediss://, redis+cluster:// or rediss+cluster://');
  }
  const rest = url.slice(scheme.length + 3).replace(/\/+$/, '');
  const at = rest.lastIndexOf('@');
  const auth = at >= 0 ? rest.slice(0, at) : '';
  const hosts = at >= 0 ? rest.slice(at + 1) : rest;
  const colon = auth.indexOf(':');
  const username = decode(colon >= 0 ? auth.slice(0, colon) : auth);
  const password = colon >= 0 ? decode(auth.slice(colon + 1)) : undefined;
  const nodes = hosts
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean)
    .map(parseNode);
  if (nodes.length === 0) throw new ConfigError('REDIS_URL: a cluster URL needs at least one host:port');
  return {
    kind: 'cluster',
    nodes,
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    tls: scheme === 'rediss+cluster',
  };
}

function parseNode(hostPort: string): { host: string; port: number } {
  // [::1]:7000, host:7000, or host alone (port 6379).
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(hostPort);
  if (!m) throw new ConfigError(`REDIS_URL: "${hostPort}" is not host:port`);
  const port = m[2] ? Number(m[2]) : 6379;
  if (port < 1 || port > 65535) throw new ConfigError(`REDIS_URL: port ${port} out of range`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
