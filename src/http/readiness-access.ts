import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { bearerNamed, type NamedToken } from '../named-tokens.js';

/** A peer address on this machine (127.0.0.0/8, ::1, IPv4-mapped loopback). */
function fromThisMachine(address: string | undefined): boolean {
  if (!address) return false;
  if (address === '::1') return true;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/**
 * Whether /readyz may show its checks (internal URLs, error text, queue and budgets) to this request:
 * a bearer of one of the API's tokens; with no token configured, a peer on this machine. Everyone
 * else gets the status code and `{status}` only, which is all a probe or a load balancer reads.
 */
export function mayReadDetails(req: IncomingMessage, apiTokens: readonly NamedToken[]): boolean {
  if (apiTokens.length === 0) return fromThisMachine(req.socket.remoteAddress);
  return bearerNamed(req.headers.authorization, apiTokens) !== null;
}
