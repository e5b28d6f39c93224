import { PermanentError, RetryableError } from '../errors.js';
import type { Logger } from '../log.js';
import type { RedisClient } from '../redis/redis-connections.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { WriteBackRecord } from '../records/write-back-record.js';
import type { Investigation } from '../store/investigation.js';
import type { RunControl } from '../store/run-control.js';
import type { Destination, DestinationView } from './destination.js';
import { DestinationBusyError, redisMemo } from './destination-memo.js';
import { destinationView } from './destination-view.js';

export interface DeliveryDeps {
  redis: RedisClient;
  store: InvestigationStore;
  /** Every destination that is on, by registration name. */
  destinations: ReadonlyMap<string, Destination>;
  log: Logger;
  publicUrl?: string;
  /** writeBack.linkHosts and writeBack.allowMentions, as for ticket comments. */
  linkHosts?: readonly string[];
  allowMentions?: boolean;
  retentionSeconds: number;
  /** The decisions of a paused turn, shown beside its pending calls; without it none are shown. */
  runs?: Pick<RunControl, 'outcome'>;
}

const WAITING = new Set(['awaiting_approval', 'queued', 'running']);

/** A completed RCA goes everywhere; a paused run (and what is decided of it until it resumes) only on its own events. */
function deliverable(inv: Investigation | null, event: DeliveryJobData['event']): inv is Investigation {
  if (!inv) return false;
  if (inv.status === 'completed') return Boolean(inv.rca);
  return (event === 'awaiting_approval' || event === 'updated') && WAITING.has(inv.status);
}

/** One routed delivery: which investigation, which event, which destination (as the route wrote it). */
export interface DeliveryJobData {
  investigationId: string;
  event: DestinationView['event'];
  /** "slack", "slack:#alerts", "teams", "webhook". */
  ref: string;
}

export type DeliveryOutcome = WriteBackRecord['status'] | 'skipped' | 'waiting';

/**
 * One attempt at one routed destination's write-back, recorded in the investigation's
 * `writeBacks` beside its source's. Throws RetryableError to be tried again through the queue,
 * PermanentError to end it `failed` (the destination named the error and the fix).
 */
export async function runDelivery(
  job: DeliveryJobData,
  attempt: number,
  lastAttempt: boolean,
  deps: DeliveryDeps,
): Promise<DeliveryOutcome> {
  const inv = await deps.store.get(job.investigationId);
  if (!deliverable(inv, job.event)) return 'skipped';
  const [name, ...rest] = job.ref.split(':');
  const target = rest.length ? rest.join(':') : null;
  const destination = deps.destinations.get(name ?? '');
  const current = inv.writeBacks.find((w) => w.destination === job.ref);
  const record = recorder(job.ref, attempt, current, () => destination?.describe(target) ?? job.ref);
  if (!destination) {
    await deps.store.saveDestinationWriteBack(
      inv.id,
      record({ status: 'failed', error: `destination ${name} is off` }),
    );
    return 'failed';
  }
  const ctx = {
    memo: redisMemo(deps.redis, name!, deps.retentionSeconds),
    log: deps.log.child({ destination: job.ref }),
  };
  try {
    const decisions =
      deps.runs && (inv.status !== 'completed' || inv.approvals)
        ? (await deps.runs.outcome(inv.id)).decisions
        : undefined;
    const view = destinationView(
      inv,
      job.event,
      { publicUrl: deps.publicUrl, linkHosts: deps.linkHosts, allowMentions: deps.allowMentions },
      decisions,
    );
    const out = await destination.deliver(view, target, ctx);
    if (!out) return 'skipped';
    await deps.store.saveDestinationWriteBack(
      inv.id,
      record({ status: 'written', commentId: out.id, url: out.url, error: null }),
    );
    deps.log.info({ id: inv.id, destination: job.ref, event: job.event, action: out.action, attempt }, 'RCA delivered');
    return 'written';
  } catch (err) {
    if (err instanceof DestinationBusyError) return 'waiting';
    return await failed(err, job, inv.id, current?.status, lastAttempt, record, deps);
  }
}

type DestinationRecord = WriteBackRecord & { destination: string };
type Recorder = (patch: Partial<WriteBackRecord>) => DestinationRecord;

/** The destination's record as it stands (or a pending one), with this attempt and the patch applied. */
function recorder(
  ref: string,
  attempt: number,
  current: WriteBackRecord | undefined,
  describe: () => string,
): Recorder {
  return (patch) => ({
    status: 'pending',
    commentId: null,
    url: null,
    error: null,
    ...current,
    target: describe(),
    destination: ref,
    attempts: attempt,
    updatedAt: new Date().toISOString(),
    ...patch,
  });
}

/** A failed attempt: recorded (failed when permanent or the last, pending otherwise), logged, and thrown typed. */
async function failed(
  err: unknown,
  job: DeliveryJobData,
  id: string,
  currentStatus: WriteBackRecord['status'] | undefined,
  lastAttempt: boolean,
  record: Recorder,
  deps: DeliveryDeps,
): Promise<never> {
  const message = err instanceof Error ? err.message : String(err);
  const permanent = err instanceof PermanentError || lastAttempt;
  // A resolve that fails leaves the RCA's record as it was written; only its own state is logged.
  if (job.event === 'completed' || currentStatus !== 'written') {
    await deps.store.saveDestinationWriteBack(id, record({ status: permanent ? 'failed' : 'pending', error: message }));
  }
  deps.log[permanent ? 'error' : 'warn'](
    { id, destination: job.ref, err: message },
    permanent ? 'delivery failed' : 'delivery will be retried',
  );
  throw err instanceof PermanentError || err instanceof RetryableError
    ? err
    : new RetryableError(message, { cause: err });
}
