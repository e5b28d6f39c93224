import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { Lifecycle } from '../../../../src/app/lifecycle.js';
import { captureLog } from '../../../helpers/log-capture.js';

/** What a running service closes, in which order, and how its servers listen (src/app/lifecycle.ts). */

const answering = (): Server => createServer((_req, res) => res.end('up'));

describe('Lifecycle', () => {
  it('closes the servers first, then every worker at once, then the rest in the order added', async () => {
    const { log } = captureLog();
    const life = new Lifecycle(log);
    const order: string[] = [];
    let releaseA!: () => void;
    life.onClose(async () => order.push('queue'));
    life.onCloseWorker(
      () =>
        new Promise<void>((r) => {
          order.push('worker a starts');
          releaseA = () => {
            order.push('worker a done');
            r();
          };
        }),
    );
    life.onCloseWorker(async () => {
      order.push('worker b starts');
      releaseA();
    });
    life.onClose(async () => order.push('connection'));
    const server = await life.listen(answering(), 0, '127.0.0.1');
    server.on('close', () => order.push('server'));
    await life.close();
    expect(order).toEqual(['server', 'worker a starts', 'worker b starts', 'worker a done', 'queue', 'connection']);
    expect(server.listening).toBe(false);
  });

  it('logs a closer that fails and still runs the next ones', async () => {
    const { log, lines } = captureLog();
    const life = new Lifecycle(log);
    const closed: string[] = [];
    life.onClose(async () => {
      throw new Error('queue gone');
    });
    life.onClose(async () => closed.push('connection'));
    await life.close();
    expect(closed).toEqual(['connection']);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'error while closing', err: 'queue gone' }));
  });

  it('rejects when the port is in use, closing nothing it did not open', async () => {
    const { log } = captureLog();
    const taken = await new Lifecycle(log).listen(answering(), 0, '127.0.0.1');
    const port = (taken.address() as AddressInfo).port;
    const life = new Lifecycle(log);
    await expect(life.listen(answering(), port, '127.0.0.1')).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await life.close();
    expect(taken.listening).toBe(true);
    taken.close();
  });

  it('holds requests until open(), then answers them', async () => {
    const { log } = captureLog();
    const life = new Lifecycle(log);
    const server = await life.listen(answering(), 0, '127.0.0.1');
    const port = (server.address() as AddressInfo).port;
    let answered = false;
    const reply = fetch(`http://127.0.0.1:${port}/`).then(async (r) => {
      answered = true;
      return r.text();
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(answered).toBe(false);
    life.open();
    expect(await reply).toBe('up');
    await life.close();
  });
});
