import { readFileSync } from 'node:fs';
import { createAppAuth } from '@octokit/auth-app';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import { ConfigError } from '../../src/errors.js';
import type { Logger } from '../../src/log.js';
import { appCredentials, type GitHubConfig } from './config.js';

const GitHubOctokit = Octokit.plugin(throttling, retry);
export type GitHubOctokit = InstanceType<typeof GitHubOctokit>;

export interface ClientOptions {
  /**
   * The throttling plugin's pacing of writes (GitHub asks for a second between writes, more
   * between comments). Tests of many writes turn it off; rate-limit answers surface either way.
   */
  pacing?: boolean;
  timeoutMs?: number;
  log?: Logger;
}

/**
 * @octokit/rest with throttling and retry. Rate limits are never waited out in-process: both
 * throttling callbacks decline, so a 429 or rate-limited 403 reaches the caller at once and the
 * queue retries later. The retry plugin retries a read once on 5xx or a network error; writes
 * opt out (see api.ts), as a POST retried after a 502 is a second comment.
 */
export function createOctokit(c: GitHubConfig, opts: ClientOptions = {}): GitHubOctokit {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  return new GitHubOctokit({
    ...authOptions(c),
    baseUrl: c.apiUrl.replace(/\/+$/, ''),
    userAgent: 'lestrade',
    log: {
      debug: () => undefined,
      info: () => undefined,
      warn: (msg: string) => opts.log?.warn({ source: 'github' }, msg),
      error: (msg: string) => opts.log?.error({ source: 'github' }, msg),
    },
    throttle: { enabled: opts.pacing ?? true, onRateLimit: () => false, onSecondaryRateLimit: () => false },
    // plugin-retry keeps its retry count on the client's shared request defaults, so after a
    // client's first retry each one waits (1+1)² × base: a 250 ms base keeps that at a second.
    retry: { retries: 1, retryAfterBaseValue: 250, doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451] },
    request: {
      fetch: (url: string | URL, init?: RequestInit) =>
        fetch(url, { ...init, signal: init?.signal ?? AbortSignal.timeout(timeoutMs) }),
    },
  });
}

function authOptions(c: GitHubConfig) {
  if (c.token) return { auth: c.token };
  const app = appCredentials(c);
  if (!app) throw new ConfigError('sources.github: no token and no complete app credentials');
  return { authStrategy: createAppAuth, auth: { ...app, privateKey: readPrivateKey(app.privateKey) } };
}

/** PEM text as it is, or with its newlines escaped (as environment variables often carry it), or a file path. */
export function readPrivateKey(value: string): string {
  if (value.includes('-----BEGIN')) return value.replace(/\\n/g, '\n');
  try {
    return readFileSync(value, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `sources.github.app.privateKey: neither PEM text nor a readable file (${(err as Error).message})`,
    );
  }
}
