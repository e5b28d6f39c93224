import type { Investigation } from '../../src/store/investigation.js';
import type { Block } from './blocks.js';
import { clip } from './blocks.js';

/** Callback ids of our modals, and the input blocks they carry (what view_submission's state is keyed by). */
export const MODAL = { deny: 'lestrade_deny', ask: 'lestrade_ask', wrong: 'lestrade_wrong' } as const;
export const INPUT = { reason: 'reason', question: 'question', rootCause: 'root_cause' } as const;

/** What a modal remembers of where it was opened: the investigation, the call, the channel and thread. Ids only. */
export interface ModalContext {
  i: string;
  c?: string;
  ch?: string;
  th?: string;
}

/** Deny a call, with an optional reason (sent to the model as the human's feedback). */
export function denyModal(inv: Investigation, toolCallId: string, where: ModalContext): Block {
  const call = inv.approvals?.pending.find((p) => p.toolCallId === toolCallId);
  return modal(MODAL.deny, 'Deny the call', 'Deny', where, [
    {
      type: 'section',
      text: { type: 'plain_text', text: clip(`Deny ${call?.tool ?? toolCallId} for: ${inv.title}`, 3000) },
    },
    input(INPUT.reason, 'Why (optional: the model is told)', true, 2000),
  ]);
}

/** A follow-up question to a completed investigation, answered from its conversation. */
export function askModal(inv: Investigation, where: ModalContext): Block {
  return modal(MODAL.ask, 'Ask a follow-up', 'Ask', where, [
    { type: 'section', text: { type: 'plain_text', text: clip(`About: ${inv.title}`, 3000) } },
    input(INPUT.question, 'Your question', false, 4000),
  ]);
}

/** The RCA was wrong: what the actual root cause was (kept with the verdict, shown to the next similar incident). */
export function wrongModal(inv: Investigation, where: ModalContext): Block {
  return modal(MODAL.wrong, 'The RCA was wrong', 'Send', where, [
    { type: 'section', text: { type: 'plain_text', text: clip(`About: ${inv.title}`, 3000) } },
    input(INPUT.rootCause, 'What was the actual root cause?', false, 2000),
  ]);
}

function modal(callbackId: string, title: string, submit: string, where: ModalContext, blocks: Block[]): Block {
  return {
    type: 'modal',
    callback_id: callbackId,
    private_metadata: JSON.stringify(where),
    title: { type: 'plain_text', text: title },
    submit: { type: 'plain_text', text: submit },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks,
  };
}

function input(id: string, label: string, optional: boolean, max: number): Block {
  return {
    type: 'input',
    block_id: id,
    optional,
    label: { type: 'plain_text', text: label },
    element: { type: 'plain_text_input', action_id: id, multiline: true, max_length: max },
  };
}
