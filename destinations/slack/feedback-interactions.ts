import type { GivenFeedback } from '../../src/actions/give-feedback.js';
import type { DecideReply } from '../../src/actions/decide-calls.js';
import type { DeliveryOutcome } from '../../src/registration/source.js';
import { ACTION, type ButtonValue } from './approval-blocks.js';
import type { BlockActionsPayload, ViewSubmissionPayload } from './interaction-payload.js';
import type { HumanActions } from '../../src/actions/human-actions.js';
import type { Logger } from '../../src/log.js';
import { INPUT, wrongModal, type ModalContext } from './modals.js';

/** Whether a button is a verdict (Correct, Wrong): anyone in the channel may give one, not only approvers. */
export function isVerdictAction(actionId: string): boolean {
  return actionId === ACTION.correct || actionId === ACTION.wrong;
}

/** What a verdict needs of the interactivity handler's dependencies. */
interface VerdictDeps {
  actions: HumanActions;
  log: Logger;
}

type Tell = (text: string) => Promise<void>;
type OpenModal = (view: Record<string, unknown>) => Promise<void>;

/**
 * Correct is recorded at once (the clicker is told, or told it was already so); Wrong opens a modal asking for
 * the actual root cause, recorded on its submit. Through the API's path (actions/give-feedback.ts).
 */
export async function onVerdictClick(
  deps: VerdictDeps,
  p: BlockActionsPayload,
  value: ButtonValue,
  where: ModalContext,
  io: { tell: Tell; open: OpenModal },
): Promise<void> {
  const inv = await deps.actions.get(value.i);
  if (!inv) return io.tell(`No investigation ${value.i} (it may have expired).`);
  where.i = inv.id;
  if (p.actions[0]!.action_id === ACTION.wrong) return io.open(wrongModal(inv, where));
  const reply = await deps.actions.feedback(inv, given('correct', p.user.id));
  if (reply.status !== 200) return io.tell(`Not recorded: ${errorText(reply)}.`);
  deps.log.info({ id: inv.id, user: p.user.id, verdict: 'correct' }, 'verdict from Slack');
  await io.tell(reply.body.changed ? 'Recorded: you said the RCA was correct. Thank you.' : 'You had already said so.');
}

/** The Wrong modal's submit: the actual root cause is required; a refusal is shown on the field. */
export async function onWrongSubmission(
  deps: VerdictDeps,
  p: ViewSubmissionPayload,
  where: ModalContext | null,
  tell: (where: ModalContext, text: string) => Promise<void>,
): Promise<DeliveryOutcome> {
  const refuse = (text: string): DeliveryOutcome => ({
    kind: 'reply',
    status: 200,
    body: { response_action: 'errors', errors: { [INPUT.rootCause]: text.slice(0, 2000) } },
  });
  const inv = where ? await deps.actions.get(where.i) : null;
  if (!inv || !where) return refuse('No such investigation (it may have expired).');
  const text = p.view.state.values[INPUT.rootCause]?.[INPUT.rootCause]?.value?.trim() ?? '';
  if (!text) return refuse('Write what the actual root cause was.');
  const reply = await deps.actions.feedback(inv, { ...given('wrong', p.user.id), rootCause: text });
  if (reply.status !== 200) return refuse(errorText(reply));
  deps.log.info({ id: inv.id, user: p.user.id, verdict: 'wrong' }, 'verdict from Slack');
  await tell(
    where,
    reply.body.changed ? 'Recorded: the RCA was wrong, with your root cause. Thank you.' : 'You had already said so.',
  );
  return { kind: 'reply', status: 200, body: undefined };
}

function given(verdict: GivenFeedback['verdict'], user: string): GivenFeedback {
  return { verdict, by: { via: 'slack', user } };
}

function errorText(reply: DecideReply): string {
  const error = reply.body.error;
  return typeof error === 'string' ? error : `refused (${reply.status})`;
}
