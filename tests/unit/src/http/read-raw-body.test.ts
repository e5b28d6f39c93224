import type { IncomingMessage } from 'node:http';
import { PassThrough, type Writable } from 'node:stream';
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { HttpStatusError, readRawBody } from '../../../../src/http/read-raw-body.js';

/** A request as readRawBody sees it: a stream with headers, fed by the test chunk by chunk. */
function fakeRequest(headers: Record<string, string>): PassThrough & IncomingMessage {
  return Object.assign(new PassThrough(), { headers }) as unknown as PassThrough & IncomingMessage;
}

function send(headers: Record<string, string>, chunks: Buffer[], limit = 100) {
  const req = fakeRequest(headers);
  const body = readRawBody(req, limit);
  for (const c of chunks) req.write(c);
  req.end();
  return body;
}

describe('readRawBody', () => {
  it('names its errors HttpStatusError, with the status', () => {
    const err = new HttpStatusError(413, 'too large');
    expect([err.name, err.status, err.message, err instanceof Error]).toEqual([
      'HttpStatusError',
      413,
      'too large',
      true,
    ]);
  });

  it('joins a body sent in several chunks, and gives an empty body as an empty buffer', async () => {
    expect((await send({}, [Buffer.from('{"a"'), Buffer.from(':'), Buffer.from('1}')])).toString()).toBe('{"a":1}');
    expect(await send({}, [])).toEqual(Buffer.alloc(0));
  });

  it('reads the encoding whatever its case and surrounding blanks', async () => {
    expect((await send({ 'content-encoding': ' GZip ' }, [gzipSync('{"z":1}')])).toString()).toBe('{"z":1}');
  });

  it('refuses on the declared length alone, before any byte arrives, when nothing inflates', async () => {
    const req = fakeRequest({ 'content-length': '101' });
    await expect(readRawBody(req, 100)).rejects.toMatchObject({ status: 413 });
    expect(req.readableFlowing).toBe(true); // drained, so the answer reaches the sender
  });

  it('judges an encoded body by what it inflates to, not by its declared length', async () => {
    const incompressible = randomBytes(95);
    const packed = gzipSync(incompressible);
    expect(packed.length).toBeGreaterThan(100);
    const body = await send({ 'content-encoding': 'gzip', 'content-length': String(packed.length) }, [packed]);
    expect(body.equals(incompressible)).toBe(true);
  });

  it('names at most 40 characters of an unknown encoding', async () => {
    const long = `x${'y'.repeat(60)}`;
    await expect(send({ 'content-encoding': long }, [])).rejects.toMatchObject({
      status: 415,
      message: `unsupported content encoding "${long.slice(0, 40)}"`,
    });
  });

  it('fails with 400 when the request is aborted or breaks while inflating', async () => {
    const aborted = fakeRequest({});
    const a = readRawBody(aborted, 100);
    aborted.write('{"a"');
    aborted.emit('aborted');
    await expect(a).rejects.toMatchObject({ status: 400, message: 'request aborted' });

    const broken = fakeRequest({ 'content-encoding': 'gzip' });
    const b = readRawBody(broken, 100);
    broken.emit('error', new Error('socket hang up'));
    await expect(b).rejects.toMatchObject({ status: 400, message: 'request body could not be read: socket hang up' });
  });

  it('destroys the inflate stream when an inflating body passes the limit mid-stream, and drains the rest', async () => {
    const { req, inflaters } = inflatingRequest();
    const body = readRawBody(req, 100);
    req.write(gzipSync(Buffer.alloc(5000, 0x20)));
    await expect(body).rejects.toMatchObject({ status: 413, message: 'request body too large' });
    expect(inflaters).toHaveLength(1);
    expect(inflaters[0]!.destroyed).toBe(true); // no zlib stream left holding the bomb's input
    expect(req.readableFlowing).toBe(true); // the rest is read and dropped, so the 413 reaches the sender
  });

  it('destroys the inflate stream when the request is aborted halfway', async () => {
    const { req, inflaters } = inflatingRequest();
    const body = readRawBody(req, 100);
    const packed = gzipSync('{"a":1}');
    req.write(packed.subarray(0, 5));
    req.emit('aborted');
    await expect(body).rejects.toMatchObject({ status: 400, message: 'request aborted' });
    expect(inflaters[0]!.destroyed).toBe(true);
  });
});

/** A gzip request that records the stream readRawBody pipes it into. */
function inflatingRequest() {
  const req = fakeRequest({ 'content-encoding': 'gzip' });
  const inflaters: Writable[] = [];
  const pipe = req.pipe.bind(req) as (dest: Writable) => Writable;
  const spy = (dest: Writable) => {
    inflaters.push(dest);
    return pipe(dest);
  };
  Object.assign(req, { pipe: spy });
  return { req, inflaters };
}
