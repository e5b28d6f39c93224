import { keys } from './keys.js';

/**
 * The name of every BullMQ queue, in one place (their jobs' data and ids are in job-data.ts). Each queue's
 * keys start with keysOf(connection).queuePrefix, so every queue lives in the records' hash slot.
 */

/** BullMQ's prefix in the default namespace, for tests; code uses keysOf(connection).queuePrefix (see keys.ts). */
export const QUEUE_PREFIX = keys.queuePrefix;
/** Investigations, their re-runs and follow-up questions. */
export const QUEUE_NAME = 'investigations';
/** Delayed jobs that end a pause for approval nobody decided in time. */
export const EXPIRY_QUEUE_NAME = 'approval-expiries';
/** Write-backs to the sources and deliveries to destinations. */
export const WRITE_BACK_QUEUE_NAME = 'writebacks';
/** The pollers' job schedulers (src/polling). */
export const POLL_QUEUE_NAME = 'polls';
/** Delayed checks of an applied remediation (src/remediation): did it help, within the window. */
export const VERIFY_QUEUE_NAME = 'remediation-verifications';
/** The health checks' job schedulers, deploy-delayed and manual runs (src/checks). */
export const CHECK_QUEUE_NAME = 'checks';
