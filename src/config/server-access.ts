import { isIP } from 'node:net';
import { splitTokens } from '../check-credentials.js';
import { ConfigError } from '../errors.js';
import type { NamedToken } from '../named-tokens.js';
import type { Config } from './schema.js';

type Server = Config['server'];

/** Where serve and worker listen when HOST is unset and no API token is configured: this machine only. */
export const LOOPBACK_HOST = '127.0.0.1';
/** Where they listen when HOST is unset and a token guards /api and the dashboard. */
export const ALL_HOSTS = '0.0.0.0';

/**
 * Every API token with its name: server.apiTokens (LESTRADE_API_TOKENS) as named, then the unnamed
 * ones of server.apiToken (LESTRADE_API_TOKEN, comma-separated) as token-1, token-2, ... in order.
 */
export function apiTokensOf(server: Server): NamedToken[] {
  const named = server.apiTokens ?? [];
  const unnamed = splitTokens(server.apiToken).map((token, i) => ({ name: `token-${i + 1}`, token }));
  const taken = new Set(named.map((t) => t.name));
  const clash = unnamed.find((t) => taken.has(t.name));
  if (clash) {
    throw new ConfigError(
      `invalid configuration: server.apiTokens (LESTRADE_API_TOKENS) names a token "${clash.name}", the name ` +
        `given to LESTRADE_API_TOKEN's token number ${clash.name.slice(6)}: rename it, or move every token to LESTRADE_API_TOKENS`,
    );
  }
  const values = new Set(named.map((t) => t.token));
  return [...named, ...unnamed.filter((t) => !values.has(t.token))];
}

/** 127.0.0.0/8, ::1, localhost, and IPv4-mapped loopback: reachable from this machine only. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice(7) : h;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/**
 * The address to listen on. HOST unset: every interface when an API token is configured (or
 * allowUnauthenticated says so), else loopback only. `lestrade serve` on a non-loopback HOST with
 * no token is refused: anyone reaching the port could approve writes, cancel and read every RCA.
 * The worker's server (/healthz, /readyz, /metrics) changes nothing and may listen anywhere.
 */
export function listenHost(server: Server, mode: 'serve' | 'worker'): string {
  const guarded = apiTokensOf(server).length > 0 || server.allowUnauthenticated;
  if (server.host === undefined) return guarded ? ALL_HOSTS : LOOPBACK_HOST;
  if (mode === 'serve' && !guarded && !isLoopback(server.host)) {
    throw new ConfigError(
      `HOST=${server.host} with no API token would open /api, approvals and the dashboard to anyone who reaches ` +
        `the port: set LESTRADE_API_TOKENS=<name>:<token> (or LESTRADE_API_TOKEN, or server.apiTokens in the ` +
        `config file), or LESTRADE_ALLOW_UNAUTHENTICATED=true (server.allowUnauthenticated) to serve it open on ` +
        `purpose, or unset HOST to listen on ${LOOPBACK_HOST} only`,
    );
  }
  return server.host;
}
