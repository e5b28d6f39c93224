import type { Issue } from '../../src/issue.js';
import type { RedisClient } from '../../src/redis/redis-connections.js';
import type { InvestigationStore } from '../../src/store/investigation-store.js';
import type { InvestigationStatus } from '../../src/store/investigation.js';
import { RunControl } from '../../src/store/run-control.js';
import { RERUN_LUA } from '../../src/store/run-control-lua.js';
import { RedisScript } from '../../src/redis/run-script.js';
import { keysOf } from '../../src/redis/keys.js';

/**
 * The real paths for what tests used to do through store shortcuts (claim one issue, mark it
 * running, mark its issue resolved): the claim script the intake runs, and the run state machine.
 */

export interface ClaimResult {
  created: boolean;
  id: string;
  status: InvestigationStatus | '';
}

/** Claims one issue as the intake does (claimMany); with `linkedOnly`, as `linked`. */
export async function claimIssue(
  store: InvestigationStore,
  issue: Issue,
  link: { linkTo?: string[]; linkedOnly?: boolean } = {},
): Promise<ClaimResult> {
  const status = link.linkedOnly ? 'linked' : 'queued';
  const { items } = await store.claims.claimMany([{ kind: 'claim', issue, status, priority: 0, linkTo: link.linkTo }]);
  const r = items[0]!;
  return { created: r.code === 'created', id: r.id, status: r.status as ClaimResult['status'] };
}

/** Resolves an issue as a resolved delivery does; the investigation's id, or null when nothing was resolved. */
export async function resolveIssue(
  store: InvestigationStore,
  issue: Pick<Issue, 'source' | 'identity' | 'fingerprint'>,
): Promise<string | null> {
  const { items } = await store.claims.claimMany([{ kind: 'resolve', issue }]);
  return items[0]!.code === 'resolved' ? items[0]!.id : null;
}

/** The run state machine on the store's connection, its retention and its secrets, as the service composes them. */
export function runsOf(store: InvestigationStore): RunControl {
  const inside = store as unknown as { redis: RedisClient; opts: { retentionSeconds: number } };
  return new RunControl(inside.redis, inside.opts.retentionSeconds, store.redact);
}

/** Starts the investigation's run as a worker's job does (queued → running); false when it was not queued. */
export async function beginRun(store: InvestigationStore, id: string, attempt = 1): Promise<boolean> {
  return runsOf(store).begin(id, 'investigation', attempt, id);
}

const RERUN = new RedisScript(RERUN_LUA);

/** The record's side of a re-run (actions/rerun.ts): a finished investigation back to queued as its next run. */
export async function rerunRecord(store: InvestigationStore, id: string): Promise<void> {
  const { redis } = store as unknown as { redis: RedisClient };
  const reply = (await RERUN.run(
    redis,
    [keysOf(redis).investigation(id), keysOf(redis).approvals(id)],
    ['now', id],
  )) as string[];
  if (reply[0] !== 'ok') throw new Error(`re-run refused: ${reply.join(' ')}`);
}
