import { networkInterfaces } from 'node:os';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../../helpers/free-port.js';
import { serviceHarness } from '../../../helpers/service-harness.js';
import { startTestService } from '../../../helpers/service.js';

// /readyz's checks quote internal URLs and error text: its bearer of an API token (or, with no token
// configured, this machine) reads them; anyone else gets the status code and {status} only.

const h = serviceHarness();
const TOKEN = 'readyz-token-0123456789';

async function readyz(base: string, path = '/readyz', token?: string) {
  const res = await fetch(`${base}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function externalAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
}

/** An LLM endpoint nobody answers at: the check's text names its URL. */
async function deadLlm() {
  return { OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: `http://127.0.0.1:${await freePort()}/v1` };
}

describe('GET /readyz with an API token configured', { timeout: 60_000 }, () => {
  it('answers the status code and {status} alone without the token, the checks with it', async () => {
    const llm = await deadLlm();
    h.svc = await startTestService(h.redis.url, { ...llm, LESTRADE_API_TOKENS: `ops:${TOKEN}` }, { workers: false });
    const bare = await readyz(h.svc.base);
    expect(bare).toEqual({ status: 503, body: { status: 'not ready' } });
    expect(await readyz(h.svc.base, '/readyz', 'wrong-token')).toEqual(bare);
    expect(await readyz(h.svc.base, '/readyz?scope=intake')).toEqual({ status: 200, body: { status: 'ready' } });
    const full = await readyz(h.svc.base, '/readyz', TOKEN);
    expect(full.status).toBe(503);
    expect(full.body).toMatchObject({ status: 'not ready', checks: { redis: 'ok' }, queue: expect.any(Object) });
    expect(String((full.body.checks as { llm: string }).llm)).toContain(llm.OPENAI_BASE_URL.replace(/\/v1$/, ''));
  });

  it("does the same on a worker's /readyz", async () => {
    const llm = await deadLlm();
    h.svc = await startTestService(h.redis.url, { ...llm, LESTRADE_API_TOKEN: TOKEN }, { http: false, workers: false });
    const base = `http://127.0.0.1:${h.svc.workerPort}`;
    expect(await readyz(base)).toEqual({ status: 503, body: { status: 'not ready' } });
    const full = await readyz(base, '/readyz', TOKEN);
    expect(full.body).toMatchObject({ status: 'not ready', checks: { redis: 'ok' } });
  });
});

describe('GET /readyz with no API token configured', { timeout: 60_000 }, () => {
  it('shows the checks to this machine only', async () => {
    h.svc = await startTestService(
      h.redis.url,
      { HOST: '0.0.0.0', LESTRADE_ALLOW_UNAUTHENTICATED: 'true' },
      { workers: false },
    );
    const local = await readyz(`http://127.0.0.1:${h.svc.port}`);
    expect(local.body).toMatchObject({ checks: { redis: 'ok' } });
    const outside = externalAddress();
    if (outside) {
      const remote = await readyz(`http://${outside}:${h.svc.port}`);
      expect(remote.body).toEqual({ status: local.body.status });
    }
  });
});
