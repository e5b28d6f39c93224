import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: Record<string, string | string[] | undefined>;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Answers to give next, in order (then 202 or `fallback`); a function can refuse after reading. */
  answers: Array<{ status: number; headers?: Record<string, string> }>;
  close(): Promise<void>;
}

/** A local HTTP receiver (a Teams Workflows endpoint, a webhook consumer) recording what it got. */
export async function startReceiver(check?: (r: Received) => number | null): Promise<Receiver> {
  const received: Received[] = [];
  const answers: Receiver['answers'] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(r);
      const refused = check?.(r) ?? null;
      const next = answers.shift() ?? { status: refused ?? 202 };
      res.writeHead(refused ?? next.status, next.headers).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    answers,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
