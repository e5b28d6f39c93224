import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { holdRequests } from '../../../../src/app/hold-requests.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

/** A server that answers each request with its method, path and body, held from the start. */
async function heldServer(): Promise<{ base: string; open: () => void; served: string[] }> {
  const served: string[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      served.push(`${req.method} ${req.url} ${body}`);
      res.end(`${req.method} ${req.url} ${body}`);
    });
  });
  const open = holdRequests(server);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, open, served };
}

describe('holdRequests (nothing served before the service says it is up)', () => {
  it('takes connections at once but answers nothing until opened, then every held request, body intact', async () => {
    const { base, open, served } = await heldServer();
    const first = fetch(`${base}/webhooks/a`, { method: 'POST', body: 'one' }).then((r) => r.text());
    const second = fetch(`${base}/healthz`).then((r) => r.text());
    let settled = false;
    void Promise.all([first, second]).then(() => (settled = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(settled).toBe(false);
    expect(served).toEqual([]);

    open();
    expect(await first).toBe('POST /webhooks/a one');
    expect(await second).toBe('GET /healthz ');
    expect(served.sort()).toEqual(['GET /healthz ', 'POST /webhooks/a one']);
    // Once open, requests go straight through.
    expect(await (await fetch(`${base}/later`)).text()).toBe('GET /later ');
    // Opening again changes nothing.
    open();
    expect(served).toHaveLength(3);
  });
});
