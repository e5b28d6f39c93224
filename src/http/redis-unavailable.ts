import { ReplyError } from 'ioredis';

/** What ioredis rejects a command with when Redis cannot be reached (fast-fail connections, clusters). */
const UNREACHABLE = new Set([
  "Stream isn't writeable and enableOfflineQueue options is false",
  'Connection is closed.',
  'Command timed out',
  'Command aborted due to connection close',
  "Cluster isn't ready and enableOfflineQueue options is false",
  'None of startup nodes is available',
  'Cluster is disconnected.',
]);
const UNREACHABLE_ERRORS = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError']);

/** Replies of a Redis that is up but cannot take the command now (loading, failing over, full, refusing us). */
const REFUSING =
  /^(LOADING|BUSY|MASTERDOWN|READONLY|OOM|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|MISCONF|NOAUTH|WRONGPASS|NOPERM)\b|max number of clients reached/;

/**
 * True when the error says Redis is unreachable or cannot store now: worth a 503, so the sender
 * delivers again. Any other error (a bug, a Redis reply such as WRONGTYPE that only our code can cause) is not.
 */
export function isRedisUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err instanceof ReplyError) return REFUSING.test(err.message);
  return UNREACHABLE_ERRORS.has(err.name) || UNREACHABLE.has(err.message);
}
