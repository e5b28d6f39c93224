import type { RemediationVerification } from '../records/remediation.js';
import type { RemediationApplied } from '../remediation/applied-event.js';
import { actionPhrase } from '../remediation/judge.js';
import { undoCallFor } from '../remediation/undo-call.js';
import type { Investigation } from '../store/investigation.js';
import { askQuestion, type AskDeps } from './ask-question.js';
import type { DecideReply } from './decide-calls.js';

/** Marks the follow-up that offers the undo of one call, so a second offer (a worker that died after it) is none. */
export const undoTag = (toolCallId: string) => `[lestrade-undo ${toolCallId}]`;

/**
 * A rollout change that did not help: its undo is offered as a pending call on the investigation. The simplest
 * honest way the engine has: a follow-up run whose question names the exact call (tool and params) for the model to
 * propose; the toolset then dry-runs it and it waits for a person's approval, like any remediation call. Null when
 * there is nothing to offer (mitigated, not a rollout change, no undo for it) or it was offered already.
 */
export async function offerUndo(
  deps: AskDeps,
  inv: Investigation,
  e: RemediationApplied,
  v: RemediationVerification,
): Promise<DecideReply | null> {
  if (v.status !== 'not_mitigated') return null;
  const undo = undoCallFor(e);
  if (!undo) return null;
  const tag = undoTag(e.toolCallId);
  if (inv.conversation.some((c) => c.question.startsWith(tag))) return null;
  const question =
    `${tag} Lestrade's check says ${actionPhrase(e)} did not mitigate the issue: ${v.evidence}. ` +
    `Propose exactly this call now, so that a person can approve or refuse it: ${undo.tool} ${JSON.stringify(undo.params)}. ` +
    'Propose no other change; then say in one sentence what it would undo.';
  return askQuestion(deps, inv, question);
}
