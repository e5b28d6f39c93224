import type { Investigation } from '../store/investigation.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { RunControl } from '../store/run-control.js';
import type { Continuations } from '../queue/continuations.js';
import type { DecideReply } from './decide-calls.js';

export interface AskDeps {
  store: InvestigationStore;
  runs: RunControl;
  continuations: Continuations;
}

/**
 * A follow-up question to a completed investigation, queued to be answered from its conversation.
 * One path for the API (POST /api/investigations/:id/ask), the CLI and Slack's "Ask a follow-up":
 * 202 queued, 409 when the investigation cannot take one now (and why).
 */
export async function askQuestion(deps: AskDeps, inv: Investigation, question: string): Promise<DecideReply> {
  if (inv.status !== 'completed')
    return {
      status: 409,
      body: { error: `only a completed investigation takes follow-up questions (status: ${inv.status})` },
    };
  if (!(await deps.store.hasCheckpoint(inv.id)))
    return { status: 409, body: { error: 'the conversation history has expired; a follow-up needs it' } };
  const result = await deps.runs.ask(inv.id, inv.conversation, question);
  if (result.outcome !== 'ok') {
    const why =
      result.outcome === 'busy'
        ? 'a follow-up question is already in progress'
        : 'only a completed investigation takes follow-up questions';
    return { status: 409, body: { error: `${why} (status: ${result.status})` } };
  }
  await deps.continuations.ask(inv.id, result.entry);
  return { status: 202, body: { status: 'queued', entry: result.entry } };
}
