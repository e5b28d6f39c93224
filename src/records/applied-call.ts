import type { ToolResult } from './tool-result.js';

/**
 * What a run resumed after approval knows of an approved call before it runs it (docs/approvals.md, "At most
 * once"): never started, started by a worker that stopped before it recorded the result, or done.
 */
export type AppliedCallState =
  { state: 'new' } | { state: 'started'; at: string } | { state: 'done'; result: ToolResult };

/**
 * The at-most-once log of one investigation's approved calls, kept outside the checkpoint so that a worker
 * that dies between running an approved call and saving the checkpoint does not run it a second time.
 */
export interface AppliedCallLog {
  /** Records that `callId` (a pause's sequence and the call's id) starts now, unless it did before; the state before. */
  begin(callId: string): Promise<AppliedCallState>;
  /** Records the call's result: a run resumed again takes it instead of running the call. */
  finish(callId: string, result: ToolResult): Promise<void>;
  /** The call's id, unique across investigations and runs: what an idempotent tool derives its marker from. */
  idOf(callId: string): string;
}
