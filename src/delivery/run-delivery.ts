import type { WriteBackRecord } from '../records/write-back-record.js';
import type { Investigation } from '../store/investigation.js';
import { recordFor, type DeliveryDeps } from './delivery-deps.js';
import { recorder, recordFailure, saveRecord } from './delivery-record.js';
import type { DestinationView } from './destination.js';
import { DestinationBusyError, redisMemo } from './destination-memo.js';
import { destinationView } from './destination-view.js';

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
  const record = recorder({ target: destination?.describe(target) ?? job.ref, destination: job.ref }, attempt, current);
  if (!destination) {
    await saveRecord(deps.store, inv.id, record({ status: 'failed', error: `destination ${name} is off` }));
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
      await recordFor(deps, 'destinations', inv),
      job.event,
      { publicUrl: deps.publicUrl, linkHosts: deps.linkHosts, allowMentions: deps.allowMentions },
      decisions,
    );
    const out = await destination.deliver(view, target, ctx);
    if (!out) return 'skipped';
    await saveRecord(deps.store, inv.id, record({ status: 'written', commentId: out.id, url: out.url, error: null }));
    deps.log.info({ id: inv.id, destination: job.ref, event: job.event, action: out.action, attempt }, 'RCA delivered');
    return 'written';
  } catch (err) {
    if (err instanceof DestinationBusyError) return 'waiting';
    // A resolve that fails leaves the RCA's record as it was written; only its own state is logged.
    const save = job.event === 'completed' || current?.status !== 'written';
    const fields = { destination: job.ref };
    return await recordFailure(err, {
      id: inv.id,
      lastAttempt,
      record,
      store: deps.store,
      log: deps.log,
      what: 'delivery',
      fields,
      save,
    });
  }
}
