/** The data and ids of the jobs on the queues of queue-names.ts. */

export interface InvestigationJobData {
  investigationId: string;
  /** Which run the job is for: the investigation (the default) or its follow-up question. */
  phase?: 'investigation' | 'ask';
}

export interface ExpiryJobData {
  investigationId: string;
  phase: 'investigation' | 'ask';
  /** The pause this job ends, if it is still the one waiting. */
  seq: number;
}

export interface WriteBackJobData {
  investigationId: string;
}

/**
 * BullMQ job ids may not contain ':'. A re-run (run 2 on, see actions/rerun.ts) writes back under
 * an id of its own, since BullMQ ignores an add whose id it still holds from the first run.
 */
export const writeBackJobId = (investigationId: string, run = 1) =>
  run > 1 ? `wb-${investigationId}-run-${run}` : `wb-${investigationId}`;

/** The job of re-run number `run` (2 and on) of an investigation: its run id. */
export const rerunJobId = (investigationId: string, run: number) => `${investigationId}-rerun-${run}`;

/** The job of follow-up question number `entry` (its index in the conversation) of an investigation. */
export const askJobId = (investigationId: string, entry: number) => `${investigationId}-ask-${entry}`;

/**
 * The verification job of one applied remediation call: one per (investigation, call), so enqueueing it again (a
 * hook fired twice, a worker that died after applying) is a no-op. The call's id is encoded: it may hold ':'.
 */
export const verifyJobId = (investigationId: string, toolCallId: string) =>
  `verify-${investigationId}-${Buffer.from(toolCallId).toString('base64url')}`;
