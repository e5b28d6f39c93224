import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEgressProxy, type EgressProxy } from '../../../../toolsets/bash/egress-proxy.js';

/**
 * The egress proxy spoken to directly, in raw HTTP over its Unix socket, as any program in the
 * sandbox could (curl with --request-target, a hand-written request): only an absolute-form
 * http://host:port/ request or a CONNECT host:port to a listed pair goes anywhere; the Host header,
 * an origin-form target, an https:// absolute-form target or a resolved address never choose it.
 */
const seen: string[] = [];
const target = createServer((req: IncomingMessage, res) => {
  seen.push(`${req.method} ${req.url}`);
  res.end('reached');
});
const off = createServer((req: IncomingMessage, res) => {
  seen.push(`OFF ${req.method} ${req.url}`);
  res.end('reached-off');
});
let T = 0;
let OFF = 0;
let proxy: EgressProxy;

beforeAll(async () => {
  T = await new Promise<number>((r) => target.listen(0, '127.0.0.1', () => r((target.address() as AddressInfo).port)));
  OFF = await new Promise<number>((r) => off.listen(0, '127.0.0.1', () => r((off.address() as AddressInfo).port)));
  const socket = join(mkdtempSync(join(tmpdir(), 'lestrade-proxy-')), 'p.sock');
  proxy = await startEgressProxy(socket, {
    destinations: [{ host: '127.0.0.1', port: T }],
    methods: 'read-only',
    configKey: 'toolsets.bash.curlHosts',
  });
});
afterAll(async () => {
  await proxy.close();
  target.close();
  off.close();
});

/** Sends raw bytes to the proxy and returns everything it answers until it closes (or 3 s pass). */
function raw(request: string): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(proxy.socketPath);
    let out = '';
    s.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      if (/^HTTP\/1\.1 200 Connection Established/.test(out)) s.end();
    });
    s.on('close', () => resolve(out));
    s.on('error', () => resolve(out));
    setTimeout(() => s.destroy(), 3_000);
    s.write(request);
  });
}

describe('the egress proxy, in raw HTTP', () => {
  it('forwards an absolute-form GET to a listed host:port', async () => {
    const out = await raw(`GET http://127.0.0.1:${T}/x?y=1 HTTP/1.1\r\nHost: whatever\r\nConnection: close\r\n\r\n`);
    expect(out).toMatch(/^HTTP\/1\.1 200/);
    expect(out).toMatch(/reached$/);
    expect(seen.at(-1)).toBe('GET /x?y=1');
  });

  it.each([
    ['an origin-form target, whatever Host says', () => `GET / HTTP/1.1\r\nHost: 127.0.0.1:${OFF}\r\n\r\n`, 400],
    ['an https:// absolute-form target', () => `GET https://127.0.0.1:${OFF}/ HTTP/1.1\r\nHost: x\r\n\r\n`, 400],
    ['userinfo in the target', () => `GET http://127.0.0.1:${T}@127.0.0.1:${OFF}/ HTTP/1.1\r\nHost: x\r\n\r\n`, 400],
    [
      'a backslash in the target',
      () => `GET http://127.0.0.1:${T}\\@127.0.0.1:${OFF}/ HTTP/1.1\r\nHost: x\r\n\r\n`,
      400,
    ],
    ['an off-list port', () => `GET http://127.0.0.1:${OFF}/ HTTP/1.1\r\nHost: 127.0.0.1:${T}\r\n\r\n`, 403],
    ['another spelling of the listed address', () => `GET http://2130706433:${T}/ HTTP/1.1\r\nHost: x\r\n\r\n`, 403],
    ['a method other than GET or HEAD', () => `DELETE http://127.0.0.1:${T}/all HTTP/1.1\r\nHost: x\r\n\r\n`, 405],
    ['CONNECT to an off-list port', () => `CONNECT 127.0.0.1:${OFF} HTTP/1.1\r\nHost: 127.0.0.1:${T}\r\n\r\n`, 403],
    ['CONNECT without a port', () => `CONNECT 127.0.0.1 HTTP/1.1\r\n\r\n`, 400],
    ['CONNECT to another spelling', () => `CONNECT [::ffff:127.0.0.1]:${T} HTTP/1.1\r\n\r\n`, 403],
  ])('refuses %s', async (_what, request, status) => {
    const before = seen.length;
    const out = await raw(request());
    expect(out).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(seen.slice(before)).toEqual([]);
  });

  it('tunnels CONNECT to a listed host:port', async () => {
    expect(await raw(`CONNECT 127.0.0.1:${T} HTTP/1.1\r\n\r\n`)).toBe('HTTP/1.1 200 Connection Established\r\n\r\n');
  });
});
