import { offerUndo } from '../actions/offer-undo.js';
import type { DeliveryQueue } from '../delivery/delivery-queue.js';
import type { Logger } from '../log.js';
import { onRemediationApplied, type RemediationApplied as Recorded } from '../records/remediation.js';
import type { RemediationApplied } from '../remediation/applied-event.js';
import type { VerifyProbes } from '../remediation/probes.js';
import { RemediationVerifier } from '../remediation/verifier.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { setVerification } from '../store/remediation-log.js';
import { closeWorker } from '../queue/close-worker.js';
import type { Lifecycle } from './lifecycle.js';
import type { Stores } from './start-core.js';

/** What the verifier checks with and for how long (the toolsets' verifyProbes, built by the CLI). */
export interface VerifySetup extends VerifyProbes {
  windowSeconds: number;
  intervalSeconds: number;
}

export interface VerifierWiring {
  redis: RedisClient;
  workerRedis: RedisClient;
  stores: Pick<Stores, 'store' | 'runs' | 'continuations'>;
  deliveries: Pick<DeliveryQueue, 'verified'>;
  log: Logger;
  lifecycle: Lifecycle;
  retentionSeconds: number;
}

/** The hook's event as the verifier reads it: the tool's answer parsed back into its data (`changes`, …). */
export function verifierEvent(e: Recorded): RemediationApplied {
  let result: unknown = e.output;
  try {
    result = JSON.parse(e.output);
  } catch {
    // Not JSON: the text as it is.
  }
  return {
    investigationId: e.investigationId,
    toolCallId: e.toolCallId,
    tool: e.tool,
    params: e.params,
    workload: e.workload,
    approvedBy: e.approvedBy ?? null,
    appliedAt: e.appliedAt,
    result,
  };
}

/**
 * The remediation verifier in a worker process (docs/remediation.md, "Verified"): every remediation this process
 * applies (the hook of store/remediation-rails.ts) gets a durable verification job; a settled one is recorded on
 * its `remediation[]` entry, re-rendered in place where the RCA was written, and a rollout change that did not help
 * gets its undo offered. Only with a rollout probe (the remediation toolset on): nothing to verify otherwise.
 */
export function startVerifier(w: VerifierWiring, setup: VerifySetup): RemediationVerifier | null {
  if (!setup.rollout) return null;
  const { stores, log } = w;
  const verifier = new RemediationVerifier(
    w.redis,
    {
      store: stores.store,
      probes: { rollout: setup.rollout, alerts: setup.alerts },
      saveVerification: async (id, call, v) => {
        if (!(await setVerification(w.redis, id, call, v)))
          log.warn({ investigationId: id, toolCallId: call }, 'verification of a remediation with no entry: dropped');
      },
      onVerified: async (e, v) => {
        const inv = await stores.store.get(e.investigationId);
        if (!inv) return;
        await w.deliveries.verified(inv, e.toolCallId);
        const offered = await offerUndo(stores, inv, e, v);
        if (offered && offered.status !== 202)
          log.warn({ investigationId: inv.id, toolCallId: e.toolCallId, reply: offered.body }, 'undo not offered');
      },
      log,
    },
    {
      windowSeconds: setup.windowSeconds,
      intervalSeconds: setup.intervalSeconds,
      retentionSeconds: w.retentionSeconds,
    },
  );
  const worker = verifier.start(w.workerRedis);
  const unsubscribe = onRemediationApplied((e) => {
    verifier.applied(verifierEvent(e)).catch((err: unknown) => {
      log.error({ investigationId: e.investigationId, toolCallId: e.toolCallId, err }, 'verification not scheduled');
    });
  });
  w.lifecycle.onCloseWorker(async () => {
    unsubscribe();
    await closeWorker(worker, log, 5_000);
  });
  w.lifecycle.onClose(() => verifier.close());
  return verifier;
}
