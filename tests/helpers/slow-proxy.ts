import { createConnection, createServer, type Server, type Socket } from 'node:net';

export interface SlowProxy {
  url: string;
  close(): Promise<void>;
}

/**
 * A TCP proxy to a Redis that delays everything the client sends by delayMs (in order), so each
 * round trip costs at least that: a test can tell a constant number of round trips from one per item.
 */
export async function startSlowProxy(targetPort: number, delayMs: number): Promise<SlowProxy> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: '127.0.0.1', port: targetPort });
    sockets.add(client).add(upstream);
    let last = Promise.resolve();
    client.on('data', (chunk: Buffer) => {
      const due = Date.now() + delayMs;
      last = last
        .then(() => new Promise<void>((r) => setTimeout(r, Math.max(0, due - Date.now()))))
        .then(() => {
          upstream.write(chunk);
        });
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    close: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
