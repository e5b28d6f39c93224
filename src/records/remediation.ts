import type { DecidedBy } from './approval.js';
import type { ToolResult } from './tool-result.js';

/** The object a remediation changes, as kubectl names it (`deployment`, `shop`, `web`). */
export interface Workload {
  kind: string;
  namespace: string;
  name: string;
}

/**
 * Whether an applied remediation helped (docs/remediation.md, "Verified"), set after it by setVerification: checked
 * for `toolsets.kubernetes_remediation.verifyWindowSeconds` after it was applied. mitigated: the rollout finished and
 * the alert (or the issue) resolved; not_mitigated: the window ended with the alert still firing, or the rollout
 * failed; unknown: nothing could tell.
 */
export interface RemediationVerification {
  status: 'mitigated' | 'not_mitigated' | 'unknown';
  checkedAt: string;
  evidence: string;
}

/** What became of one remediation, for `lestrade_remediations_total{result}` and the record. */
export type RemediationResult = 'applied' | 'already_applied' | 'refused' | 'failed';

/**
 * One approved remediation call that ran, on the investigation's record (`remediation[]`, GET
 * /api/investigations/:id): written once per applied call (store/remediation-log.ts), whatever stops in between.
 */
export interface RemediationEntry {
  /** The model's call id (as in `toolCalls[]` and `approvals`). */
  toolCallId: string;
  /** The applied-call id (AppliedCallLog.idOf): unique across runs; the entry's key. */
  appliedId: string;
  tool: string;
  params: Record<string, unknown>;
  workload: Workload;
  /** Who approved it (the approval's decidedBy); absent only when the decision named nobody. */
  approvedBy?: DecidedBy;
  /** When its result was recorded (ISO). */
  appliedAt: string;
  /** applied: this approval's write was made; already_applied: found made (a second run); failed: it was not. */
  result: Exclude<RemediationResult, 'refused'>;
  /** What the tool answered (its data or error, as the model saw it). */
  output: string;
  verification?: RemediationVerification;
}

/**
 * The rails of one remediation tool (Tool.remediation): which object a call changes and the limits every worker
 * enforces before anyone is asked. The toolset fills them from its settings; the engine knows no vendor.
 */
export interface RemediationRules {
  workload(params: Record<string, unknown>): Workload;
  /** Applied actions per UTC day across every worker; proposals past it are refused. */
  maxActionsPerDay: number;
  /** The config key that sets maxActionsPerDay, named in the refusal ("raise …"). */
  maxActionsPerDayKey: string;
  /** How long a workload stays held for a proposal (pending approval, then applying) at most. */
  inFlightSeconds: number;
  /** How long it stays held after an applied action (for a verification to take it over); 0: released at once. */
  holdAfterApplySeconds: number;
}

/** A proposed remediation call, as the rails see it before anyone is asked. */
export interface RemediationProposal {
  toolCallId: string;
  tool: string;
  rules: RemediationRules;
  params: Record<string, unknown>;
}

/** An approved remediation call that ran (or was found run), as the loop hands it to the rails. */
export interface RemediationRan extends RemediationProposal {
  appliedId: string;
  approvedBy?: DecidedBy;
  result: ToolResult;
}

/**
 * The remediation rails of one investigation (store/remediation-log.ts implements them on Redis; the loop calls
 * them): a proposal holds its workload or is refused; a dropped one (denied, expired) frees it; a call that ran is
 * recorded once, counted once and announced (onRemediationApplied).
 */
export interface RemediationRails {
  /** Before anyone is asked: null when the call may wait for a human (its workload now held), else why not. */
  propose(p: RemediationProposal): Promise<string | null>;
  /** A proposal the tool itself refused before anyone was asked (its scope, the opt-out label, a dry run): counted. */
  refused(p: RemediationProposal, reason: string): void;
  /** A proposal that will not run (denied, expired): its workload freed. */
  drop(p: RemediationProposal): Promise<void>;
  /** An approved call that ran, or whose result a resumed run found logged: recorded on the investigation once. */
  ran(p: RemediationRan): Promise<void>;
}

/** "A remediation call was applied": what subscribers of onRemediationApplied are told, once per applied call. */
export interface RemediationApplied {
  investigationId: string;
  toolCallId: string;
  /** The applied-call id (the entry's key; what setVerification finds it by, with toolCallId). */
  appliedId: string;
  tool: string;
  params: Record<string, unknown>;
  workload: Workload;
  approvedBy?: DecidedBy;
  appliedAt: string;
  result: 'applied' | 'already_applied';
  /** What the tool answered (its data, JSON for the remediation tools), as on the entry. */
  output: string;
}

type Listener = (e: RemediationApplied) => void;
const listeners = new Set<Listener>();

/**
 * The hook: `listener` is called, in the worker process that recorded it, once for every approved remediation
 * that took effect (result applied, or already_applied when a resumed run found it made), right after its
 * `remediation[]` entry is written. Returns the unsubscribe function. A listener must not throw (what it throws is
 * logged and ignored) and should hand long work (a verification window) to a job of its own: a worker killed
 * between the entry and the call does not call it again.
 */
export function onRemediationApplied(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Calls every onRemediationApplied listener; returns what they threw (to be logged). */
export function announceRemediationApplied(e: RemediationApplied): unknown[] {
  const errors: unknown[] = [];
  for (const l of listeners) {
    try {
      l(e);
    } catch (err) {
      errors.push(err);
    }
  }
  return errors;
}
