import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { serviceHarness } from '../../helpers/service-harness.js';
import { startTestService } from '../../helpers/service.js';

// The listening address as the socket reports it: on defaults (no HOST, no token) nobody but this
// machine reaches serve or a worker; a token (or the explicit opt-in) opens every interface.

/** An address of this machine other hosts could use, if it has one. */
function externalAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
}

const h = serviceHarness();
const DEFAULTS = { HOST: '', ALERTMANAGER_ALLOW_UNAUTHENTICATED: '' };

describe('where lestrade listens', { timeout: 60_000 }, () => {
  it('serve on its defaults listens on 127.0.0.1 only, and says so with the variables that open it', async () => {
    h.svc = await startTestService(h.redis.url, DEFAULTS, { workers: false });
    expect(h.svc.address).toBe('127.0.0.1');
    expect((await fetch(`http://127.0.0.1:${h.svc.port}/healthz`)).status).toBe(200);
    const outside = externalAddress();
    if (outside) await expect(fetch(`http://${outside}:${h.svc.port}/healthz`)).rejects.toThrow();
    const summary = h.svc.logs.find((l) => l.msg === 'lestrade serve started');
    expect(summary?.listening).toBe(
      `http://127.0.0.1:${h.svc.port} (PORT, HOST), this machine only: no API token is set. ` +
        'To open it to other hosts set HOST=0.0.0.0 and LESTRADE_API_TOKENS=<name>:<token> (or LESTRADE_API_TOKEN)',
    );
  });

  it("a worker's probe server on its defaults listens on 127.0.0.1 only", async () => {
    // workers: false: the worker's HTTP server alone (a worker with no LLM closed at once trips an ioredis
    // "Connection is closed" rejection that is not this test's subject).
    h.svc = await startTestService(h.redis.url, DEFAULTS, { http: false, workers: false });
    expect(h.svc.address).toBe('127.0.0.1');
  });

  it('with an API token and no HOST, serve listens on every interface', async () => {
    h.svc = await startTestService(
      h.redis.url,
      { ...DEFAULTS, LESTRADE_API_TOKENS: 'alice:defaults-token-1234' },
      {
        workers: false,
      },
    );
    expect(h.svc.address).toBe('0.0.0.0');
  });

  it('refuses a non-loopback HOST with no token, and serves it when the operator opts in', async () => {
    await expect(startTestService(h.redis.url, { HOST: '0.0.0.0' }, { workers: false })).rejects.toThrow(
      /HOST=0\.0\.0\.0 with no API token .* LESTRADE_ALLOW_UNAUTHENTICATED=true/,
    );
    h.svc = await startTestService(
      h.redis.url,
      { HOST: '0.0.0.0', LESTRADE_ALLOW_UNAUTHENTICATED: 'true' },
      { workers: false },
    );
    expect(h.svc.address).toBe('0.0.0.0');
    const warned = h.svc.logs.find((l) => String(l.msg).includes('open to anyone who can reach this port'));
    expect(warned?.level).toBe(40);
  });
});
