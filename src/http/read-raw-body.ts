import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/** A request the HTTP side refuses with a 4xx status (the error handler answers with it). */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'HttpStatusError';
  }
}

const DECODERS: Record<string, (() => Transform) | undefined> = Object.assign(Object.create(null) as object, {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
});

/**
 * The body as sent, inflated when Content-Encoding says so, at most `limit` bytes after
 * inflating: 413 as soon as the declared length or the bytes read pass it (an inflating body
 * is cut off there, so a small bomb never becomes a large buffer), 415 for an unknown encoding,
 * 400 for a body that ends early or does not inflate.
 */
export function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const declared = Number(req.headers['content-length']);
  const decoder = encoding === 'identity' ? null : DECODERS[encoding];
  if (decoder === undefined)
    return drainThen(req, new HttpStatusError(415, `unsupported content encoding "${encoding.slice(0, 40)}"`));
  if (!decoder && declared > limit) return drainThen(req, new HttpStatusError(413, 'request body too large'));
  return new Promise((resolve, reject) => {
    const stream = decoder ? req.pipe(decoder()) : req;
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const fail = (err: Error) => {
      if (done) return;
      done = true;
      if (stream !== req) stream.destroy();
      req.unpipe();
      req.resume();
      reject(err);
    };
    stream.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) return fail(new HttpStatusError(413, 'request body too large'));
      chunks.push(chunk);
    });
    stream.on('end', () => {
      if (done) return;
      done = true;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    });
    stream.on('error', (err: Error) =>
      fail(new HttpStatusError(400, `request body could not be read: ${err.message}`)),
    );
    req.on('aborted', () => fail(new HttpStatusError(400, 'request aborted')));
    if (stream !== req)
      req.on('error', (err: Error) => fail(new HttpStatusError(400, `request body could not be read: ${err.message}`)));
  });
}

/** Refuses without buffering: the rest of the body is read and dropped, so the answer reaches the sender. */
function drainThen(req: IncomingMessage, err: HttpStatusError): Promise<never> {
  req.resume();
  return Promise.reject(err);
}
