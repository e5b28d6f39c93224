/**
 * The run state machine, written down once: every change of a run's status (the investigation's
 * `status`, or a follow-up's `askStatus`), the statuses it may start from and the one it leaves.
 * RunControl's scripts take their guards from this table (luaSet, or the statuses passed as
 * arguments), so the table and the Lua cannot disagree; tests/integration/src/store/run-transitions.test.ts
 * walks it on a real Redis.
 */

/** Every status a run can be in (`answered` only for a follow-up; `linked` and `skipped` only for an investigation). */
export const RUN_STATUSES = [
  'queued',
  'running',
  'awaiting_approval',
  'completed',
  'answered',
  'failed',
  'cancelled',
  'linked',
  'skipped',
] as const;

export type RunStatus = (typeof RUN_STATUSES)[number];

export interface Transition {
  readonly from: readonly RunStatus[];
  readonly to: RunStatus;
}

/** A run still under way: it can be cancelled, and no follow-up or re-run starts beside it. */
export const ACTIVE: readonly RunStatus[] = ['queued', 'running', 'awaiting_approval'];

const EVERY: readonly RunStatus[] = RUN_STATUSES;

export const TRANSITIONS = {
  /** A job takes the run; from `running` only for the job already running it (BullMQ handing a dead worker's job on). */
  start: { from: ['queued', 'running'], to: 'running' },
  /** The loop waits for approvals. */
  pause: { from: ['running'], to: 'awaiting_approval' },
  /** Every waiting call decided, or the pause expired: back to the queue, to be resumed. */
  resume: { from: ['awaiting_approval'], to: 'queued' },
  /** The investigation's RCA; a cancelled one stays cancelled. */
  complete: { from: EVERY.filter((s) => s !== 'cancelled'), to: 'completed' },
  /** The run's job gave up (the job handler's own record of it). */
  fail: { from: EVERY, to: 'failed' },
  /** BullMQ failed the job outside the handler: only a run not finished is ended. */
  failUnfinished: { from: ['queued', 'running'], to: 'failed' },
  /** Not run at all: a skip rule, or its issue resolved while it was queued. */
  skip: { from: ['queued', 'running'], to: 'skipped' },
  /** A failed attempt to be retried. */
  requeue: { from: EVERY, to: 'queued' },
  cancel: { from: ACTIVE, to: 'cancelled' },
  /** A follow-up question on a completed investigation (its `status` stays completed). */
  ask: { from: EVERY.filter((s) => !ACTIVE.includes(s)), to: 'queued' },
  /** A finished investigation run again from the start (actions/rerun.ts). */
  rerun: { from: ['completed', 'failed', 'cancelled'], to: 'queued' },
  /** A follow-up's answer stored (its `askStatus`). */
  answer: { from: ['running'], to: 'answered' },
  /** A follow-up's job gave up, in the handler or outside it (its `askStatus`). */
  failAsk: { from: ['running'], to: 'failed' },
  /** A follow-up's failed attempt that will be retried (its `askStatus`). */
  requeueAsk: { from: ['running'], to: 'queued' },
} as const satisfies Record<string, Transition>;

export type TransitionName = keyof typeof TRANSITIONS;

/** The transitions that settle a follow-up question's run (its `askStatus`; the investigation's `status` stays). */
export type AskSettlement = 'answer' | 'failAsk' | 'requeueAsk';

/** Whether `name` may change a run in status `from`. */
export function allows(name: TransitionName, from: string): boolean {
  return (TRANSITIONS[name].from as readonly string[]).includes(from);
}

/** Statuses as a Lua table literal (`{queued = true, running = true}`), for a script's guard. */
export function luaSet(statuses: readonly RunStatus[]): string {
  return `{${statuses.map((s) => `${s} = true`).join(', ')}}`;
}

/** A status as a Lua string literal. */
export const luaString = (status: RunStatus): string => `'${status}'`;
