import type { Job } from 'bullmq';
import { PermanentError } from '../errors.js';
import type { LoopState, Usage } from '../records/loop-state.js';
import type { ConversationEntry, Investigation } from '../store/investigation.js';
import { askJobId, type InvestigationJobData } from '../redis/job-data.js';
import { runLoopJob, type JobDeps, type LoopJob } from './job-run.js';

/**
 * A follow-up question on a completed investigation: the conversation carries on from its
 * checkpoint, and the answer lands on the question's conversation entry (the investigation's own
 * status and RCA stay as they are, so no write-back to its ticket follows; routed destinations are
 * told through onAnswered, and Slack posts the answer in the investigation's thread).
 */
export async function runFollowUpJob(job: Job<InvestigationJobData>, inv: Investigation, deps: JobDeps): Promise<void> {
  const status = lastEntryStatus(inv);
  const entry = inv.conversation.length - 1;
  if (status === 'answered' && job.id === askJobId(inv.id, entry)) {
    // Redelivered after the answer was saved (a crash before the job was acknowledged): the request to show
    // the answer may be what was lost. Requesting it again is idempotent.
    await deps.onAnswered?.(inv, entry);
    return;
  }
  if (status !== 'queued' && status !== 'running') return;
  await runLoopJob(job, inv, followUp(inv, deps), deps);
  if (!deps.onAnswered) return;
  // Outside the run, as for an RCA's write-back: a failure here retries the job, and the guard above asks again.
  const after = await deps.store.get(inv.id);
  if (after?.conversation[entry]?.status === 'answered') await deps.onAnswered(after, entry);
}

const lastEntryStatus = (inv: Investigation) => inv.conversation.at(-1)?.status;

function followUp(inv: Investigation, deps: JobDeps): LoopJob {
  const { id } = inv;
  return {
    phase: 'ask',
    noun: 'follow-up',
    statusOf: lastEntryStatus,
    run: (checkpoint, opts) =>
      deps.investigator.followUp(
        requireCheckpoint(checkpoint),
        inv.conversation.at(-1)!.question,
        inv.conversation.length - 1,
        opts,
      ),
    async finish(result, progress) {
      const usage = questionUsage(result.state);
      const conversation = withLast(inv, {
        answer: result.answer,
        status: 'answered',
        answeredAt: new Date().toISOString(),
        error: null,
        usage,
      });
      result.state.question = null;
      await deps.store.saveCheckpoint(id, result.state);
      const answered = await deps.runs.settleAsk(
        id,
        'answer',
        {
          conversation: JSON.stringify(conversation),
          toolCalls: JSON.stringify(progress.toolCalls),
          usage: JSON.stringify(progress.usage),
          context: JSON.stringify(progress.context),
          redactions: JSON.stringify(progress.redactions),
          updatedAt: new Date().toISOString(),
        },
        true,
      );
      if (answered) await count(deps, id, usage, conversation.length - 1);
      deps.log.info({ id, llmCalls: progress.usage.llmCalls, question: usage }, 'follow-up answered');
      return false;
    },
    async fail(f, message, giveUp) {
      const partial = f.partial;
      const usage = partial ? questionUsage(partial) : undefined;
      const conversation = giveUp
        ? withLast(inv, { status: 'failed', error: message, ...(usage ? { usage } : {}) })
        : inv.conversation;
      const fields = { conversation: JSON.stringify(conversation) };
      const settled = await deps.runs.settleAsk(id, giveUp ? 'failAsk' : 'requeueAsk', fields, giveUp);
      if (settled && giveUp && usage) await count(deps, id, usage, conversation.length - 1);
    },
  };
}

/** The conversation with its last entry (the question being answered) changed. */
function withLast(inv: Investigation, change: Partial<ConversationEntry>): ConversationEntry[] {
  return inv.conversation.map((e, i, all) => (i === all.length - 1 ? { ...e, ...change } : e));
}

/** What this question used: the conversation's usage now, less what it was when the question was asked. */
function questionUsage(state: LoopState): Usage {
  const before = state.questionUsage ?? { promptTokens: 0, completionTokens: 0, llmCalls: 0 };
  return {
    llmCalls: state.usage.llmCalls - before.llmCalls,
    promptTokens: state.usage.promptTokens - before.promptTokens,
    completionTokens: state.usage.completionTokens - before.completionTokens,
  };
}

/** The question's ledger entry (usage per day, budgets, its cost); accounting never fails the answer. */
async function count(deps: JobDeps, id: string, usage: Usage, entry: number): Promise<void> {
  await deps.hooks
    ?.settled(id, usage, entry)
    .catch((err: Error) => deps.log.warn({ id, entry, err: err.message }, 'could not record usage'));
}

function requireCheckpoint(state: LoopState | null): LoopState {
  if (!state)
    throw new PermanentError(
      'the conversation history has expired (older than queue.retentionSeconds); a follow-up needs it',
    );
  return state;
}
