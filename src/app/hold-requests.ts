import type { IncomingMessage, Server, ServerResponse } from 'node:http';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Holds every request the server receives until the returned `open()` is called, then serves them in
 * order. The port is taken at once (a port in use fails the start before any worker has taken a
 * job), yet nothing is served, accepted or logged before the service has said it is up. Call it
 * before the server listens.
 */
export function holdRequests(server: Server): () => void {
  const handlers = server.listeners('request') as Handler[];
  server.removeAllListeners('request');
  const serve: Handler = (req, res) => {
    for (const h of handlers) h.call(server, req, res);
  };
  let held: Array<[IncomingMessage, ServerResponse]> | null = [];
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (held) held.push([req, res]);
    else serve(req, res);
  });
  return () => {
    const waiting = held ?? [];
    held = null;
    for (const [req, res] of waiting) serve(req, res);
  };
}
