import type { Request, Response } from 'express';
import type { ChangeFeed } from './change-feed.js';

/** A comment line now and then keeps proxies from closing an idle stream. */
const KEEPALIVE_MS = 25_000;

/**
 * GET /ui/events: server-sent events, one `change` event per changed investigation record (data:
 * its id, or "*" for several), from every process's store through the Redis change channel.
 */
export function changeStream(feed: ChangeFeed | undefined) {
  return (req: Request, res: Response): void => {
    res.status(200).set({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    res.write(`retry: 3000\n: ${feed ? 'live' : 'no change feed in this process'}\n\n`);
    const stop = feed?.listen((id) => {
      res.write(`event: change\ndata: ${id.replace(/[\r\n]/g, '')}\n\n`);
    });
    const keepalive = setInterval(() => {
      res.write(': keepalive\n\n');
    }, KEEPALIVE_MS);
    req.on('close', () => {
      clearInterval(keepalive);
      stop?.();
    });
  };
}
