import { DelayedError, Worker, type Job, type Queue } from 'bullmq';
import type { Logger } from '../log.js';
import type { RemediationVerification } from '../records/remediation.js';
import { verifyJobId } from '../redis/job-data.js';
import { keysOf } from '../redis/keys.js';
import { openQueue } from '../redis/open-queue.js';
import { VERIFY_QUEUE_NAME } from '../redis/queue-names.js';
import type { RedisClient } from '../redis/redis-connections.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { RemediationApplied } from './applied-event.js';
import { judge } from './judge.js';
import { observe } from './observe.js';
import type { VerifyProbes } from './probes.js';

/** toolsets.kubernetes_remediation.verifyWindowSeconds and verifyIntervalSeconds; `now` for tests' clocks. */
export interface VerifyTiming {
  windowSeconds: number;
  intervalSeconds: number;
  /** How long finished jobs are kept (queue.retentionSeconds). */
  retentionSeconds: number;
  now?: () => number;
}

export interface VerifierDeps {
  store: Pick<InvestigationStore, 'get'>;
  probes: VerifyProbes;
  /** Records the verification on the investigation's remediation entry (setVerification of the remediation log). */
  saveVerification(investigationId: string, toolCallId: string, v: RemediationVerification): Promise<void>;
  /**
   * Said where the team looks, once it is recorded: the composition root re-renders the write-back and the
   * destinations in place, and offers the undo of a rollout change that did not help (see offerUndo). Must be
   * idempotent: a worker that dies after saving runs it again.
   */
  onVerified?(e: RemediationApplied, v: RemediationVerification): Promise<void>;
  log: Logger;
}

export interface VerifyJobData {
  event: RemediationApplied;
  /** When the window ends (ms since the epoch), from the time it was applied. */
  deadline: number;
}

/**
 * Verifies applied remediations (docs/remediation.md, "Verified"): one delayed BullMQ job per applied call, which
 * looks every `intervalSeconds` until the window ends and then records mitigated, not_mitigated or unknown. The job
 * is durable (it survives restarts; another worker takes it) and its id is the call's, so it runs once.
 */
export class RemediationVerifier {
  private readonly queue: Queue<VerifyJobData>;
  private readonly now: () => number;

  constructor(
    private readonly redis: RedisClient,
    private readonly deps: VerifierDeps,
    private readonly timing: VerifyTiming,
  ) {
    this.queue = openQueue<VerifyJobData>(redis, VERIFY_QUEUE_NAME);
    this.now = timing.now ?? Date.now;
  }

  /** A remediation call was applied: its checks begin after one interval. Calling it twice adds one job. */
  async applied(event: RemediationApplied): Promise<void> {
    const appliedAt = Date.parse(event.appliedAt);
    const from = Number.isFinite(appliedAt) ? appliedAt : this.now();
    const data: VerifyJobData = { event, deadline: from + this.timing.windowSeconds * 1000 };
    await this.queue.add('verify', data, {
      jobId: verifyJobId(event.investigationId, event.toolCallId),
      delay: this.timing.intervalSeconds * 1000,
      attempts: 5,
      backoff: { type: 'exponential', delay: 5_000 },
      removeOnComplete: { age: this.timing.retentionSeconds },
      removeOnFail: { age: this.timing.retentionSeconds },
    });
  }

  /** One look; the verification once settled, else null. Exposed for tests and the CLI. */
  async check(data: VerifyJobData): Promise<RemediationVerification | null> {
    const { event } = data;
    const inv = await this.deps.store.get(event.investigationId);
    const now = this.now();
    const seen = await observe(event, inv, this.deps.probes, { now, deadline: data.deadline }, this.deps.log);
    return judge(event, seen);
  }

  /**
   * The worker, on a worker connection (createWorkerRedis: BullMQ's blocking reads): checks, and puts the job back
   * for the next interval until the verification is settled.
   */
  start(workerRedis: RedisClient, concurrency = 2): Worker<VerifyJobData> {
    const worker = new Worker<VerifyJobData>(VERIFY_QUEUE_NAME, (job, token) => this.process(job, token), {
      connection: workerRedis,
      prefix: keysOf(this.redis).queuePrefix,
      concurrency,
    });
    worker.on('error', (err) => this.deps.log.error({ err: err.message }, 'verification worker error'));
    return worker;
  }

  private async process(job: Job<VerifyJobData>, token?: string): Promise<void> {
    const { event, deadline } = job.data;
    const v = await this.check(job.data);
    if (!v) {
      const wait = Math.max(0, Math.min(this.timing.intervalSeconds * 1000, deadline - this.now()));
      await job.moveToDelayed(Date.now() + wait, token);
      throw new DelayedError();
    }
    await this.deps.saveVerification(event.investigationId, event.toolCallId, v);
    this.deps.log.info(
      {
        id: event.investigationId,
        toolCallId: event.toolCallId,
        tool: event.tool,
        status: v.status,
        evidence: v.evidence,
      },
      'remediation verified',
    );
    await this.deps.onVerified?.(event, v);
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}
