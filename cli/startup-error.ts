import { ConfigError } from '../src/errors.js';

interface ListenTarget {
  port: number;
  host: string;
  /** What sets the port: PORT / server.port (serve), unless said (the worker's LESTRADE_WORKER_PORT). */
  portVar?: string;
  portKey?: string;
}

/**
 * A failure at start-up a user can fix, said as one line naming the variable or key to change;
 * anything else is returned as it came.
 */
export function startupError(err: unknown, server: ListenTarget): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const where = `${server.host}:${server.port}`;
  const setPort = `set ${server.portVar ?? 'PORT'} (or ${server.portKey ?? 'server.port'} in the config file)`;
  if (code === 'EADDRINUSE') {
    return new ConfigError(`port ${server.port} is in use (${where}): ${setPort} to a free port`);
  }
  if (code === 'EACCES') {
    return new ConfigError(`no permission to listen on ${where}: ${setPort} to a port above 1023`);
  }
  if (code === 'EADDRNOTAVAIL') {
    return new ConfigError(
      `cannot listen on ${where}: no such address here: set HOST (or server.host in the config file)`,
    );
  }
  return err;
}
