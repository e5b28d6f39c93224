import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRawBody } from '../../../../src/http/read-raw-body.js';

/** readRawBody on a real socket: what it hands on, and the status it refuses with. */
const LIMIT = 1000;
let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((req, res) => {
    readRawBody(req, LIMIT).then(
      (body) => {
        res.writeHead(200);
        res.end(Buffer.from(`ok ${body.length} ${body.subarray(0, 20).toString('latin1')}`, 'latin1'));
      },
      (err: Error & { status?: number }) => {
        res.writeHead(err.status ?? 599);
        res.end(err.message);
      },
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

/** Raw HTTP: with Content-Length, or chunked (no length declared) in two writes. */
function send(
  body: Buffer,
  headers: Record<string, string | number> = {},
  chunked = false,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/',
        headers: chunked ? headers : { 'content-length': body.length, ...headers },
      },
      (res) => {
        let text = '';
        res
          .setEncoding('latin1')
          .on('data', (c: string) => {
            text += c;
          })
          .on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    if (chunked) {
      req.write(body.subarray(0, 10));
      req.end(body.subarray(10));
    } else req.end(body);
  });
}

describe('readRawBody', () => {
  const json = Buffer.from(`{"a":"${'x'.repeat(100)}"}`);

  it('hands on the body as sent, byte for byte', async () => {
    const bytes = Buffer.from([0xff, 0x00, 0x7b, 0xe2, 0x82]);
    expect(await send(bytes)).toEqual({ status: 200, text: `ok 5 ${bytes.toString('latin1')}` });
  });

  it('inflates gzip, x-gzip, deflate and br, and takes identity in any case as none', async () => {
    for (const [encoding, packed] of [
      ['gzip', gzipSync(json)],
      ['x-gzip', gzipSync(json)],
      ['deflate', deflateSync(json)],
      ['br', brotliCompressSync(json)],
      [' Identity ', json],
    ] as const) {
      expect(await send(packed, { 'content-encoding': encoding }), encoding).toEqual({
        status: 200,
        text: `ok ${json.length} {"a":"xxxxxxxxxxxxxx`,
      });
    }
  });

  it('refuses an encoding it does not know with 415, naming it', async () => {
    expect(await send(json, { 'content-encoding': 'compress' })).toEqual({
      status: 415,
      text: 'unsupported content encoding "compress"',
    });
  });

  it('takes a body of exactly the limit and refuses one byte more with 413, declared or not', async () => {
    expect((await send(Buffer.alloc(LIMIT, 0x61))).status).toBe(200);
    expect(await send(Buffer.alloc(LIMIT + 1, 0x61))).toEqual({ status: 413, text: 'request body too large' });
    expect((await send(Buffer.alloc(LIMIT, 0x61), {}, true)).status).toBe(200);
    expect((await send(Buffer.alloc(LIMIT + 1, 0x61), {}, true)).status).toBe(413);
  });

  it('counts the limit after inflating: a small gzip that inflates past it is 413', async () => {
    const bomb = gzipSync(Buffer.alloc(LIMIT * 50, 0x20));
    expect(bomb.length).toBeLessThan(LIMIT);
    expect(await send(bomb, { 'content-encoding': 'gzip' })).toEqual({ status: 413, text: 'request body too large' });
  });

  it('refuses a body that does not inflate with 400', async () => {
    const res = await send(Buffer.from('not gzip at all'), { 'content-encoding': 'gzip' });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/^request body could not be read: /);
  });
});
