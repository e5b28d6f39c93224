import type { Server } from 'node:http';
import type { Logger } from '../log.js';
import { holdRequests } from './hold-requests.js';

export type Closer = () => Promise<unknown>;

/**
 * What a running service closes, and in which order: the HTTP servers first, then every worker at once
 * (each drains in its own time), then the queues and connections in the order they were opened. Also holds
 * the servers' requests until the service has said it is up (hold-requests.ts).
 */
export class Lifecycle {
  private readonly servers: Closer[] = [];
  private readonly workers: Closer[] = [];
  private readonly rest: Closer[] = [];
  private readonly holds: Array<() => void> = [];

  constructor(private readonly log: Logger) {}

  /** A worker (or poller): closed at once with the others, after the servers. */
  onCloseWorker(c: Closer): void {
    this.workers.push(c);
  }

  /** A queue, a connection, a subscription: closed after the workers, in the order added. */
  onClose(c: Closer): void {
    this.rest.push(c);
  }

  /** Listens on host:port (a port in use rejects), holding requests until open(); the server closes first. */
  async listen(http: Server, port: number, host: string): Promise<Server> {
    this.holds.push(holdRequests(http));
    const server = await new Promise<Server>((resolve, reject) => {
      http.once('error', reject);
      http.listen(port, host, () => {
        http.off('error', reject);
        resolve(http);
      });
    });
    this.servers.unshift(
      () =>
        new Promise((r) => {
          server.close(() => r(undefined));
          server.closeAllConnections();
        }),
    );
    return server;
  }

  /** Up, and said so: the requests that came meanwhile are served now. */
  open(): void {
    for (const open of this.holds) open();
  }

  /** Closes everything; a closer that fails is logged and the next one still runs. */
  async close(): Promise<void> {
    const all: Closer[] = [...this.servers, () => Promise.all(this.workers.map((c) => c())), ...this.rest];
    for (const c of all) await c().catch((err: Error) => this.log.warn({ err: err.message }, 'error while closing'));
  }
}
