import type { Job } from 'bullmq';
import { PermanentError } from '../errors.js';
import type { LoopState } from '../model/loop-state.js';
import type { Investigation } from '../store/investigation.js';
import type { InvestigationJobData } from '../redis/queue-names.js';
import { runLoopJob, type JobDeps, type LoopJob } from './job-run.js';

/**
 * A follow-up question on a completed investigation: the conversation carries on from its
 * checkpoint, and the answer lands on the question's conversation entry (the investigation's own
 * status and RCA stay as they are, so no write-back follows).
 */
export async function runFollowUpJob(job: Job<InvestigationJobData>, inv: Investigation, deps: JobDeps): Promise<void> {
  const status = lastEntryStatus(inv);
  if (status !== 'queued' && status !== 'running') return;
  await runLoopJob(job, inv, followUp(inv, deps), deps);
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
      const conversation = inv.conversation.map((e, i, all) =>
        i === all.length - 1
          ? {
              ...e,
              answer: result.answer,
              status: 'answered' as const,
              answeredAt: new Date().toISOString(),
              error: null,
            }
          : e,
      );
      result.state.question = null;
      await deps.store.saveCheckpoint(id, result.state);
      await deps.runs.updateIf(
        id,
        'ask',
        'running',
        {
          askStatus: 'answered',
          conversation: JSON.stringify(conversation),
          toolCalls: JSON.stringify(progress.toolCalls),
          usage: JSON.stringify(progress.usage),
          context: JSON.stringify(progress.context),
          updatedAt: new Date().toISOString(),
        },
        true,
      );
      deps.log.info({ id, llmCalls: progress.usage.llmCalls }, 'follow-up answered');
      return false;
    },
    async fail(_f, message, giveUp) {
      const conversation = inv.conversation.map((c, i, all) =>
        i === all.length - 1 && giveUp ? { ...c, status: 'failed' as const, error: message } : c,
      );
      await deps.runs.updateIf(
        id,
        'ask',
        'running',
        { askStatus: giveUp ? 'failed' : 'queued', conversation: JSON.stringify(conversation) },
        giveUp,
      );
    },
  };
}

function requireCheckpoint(state: LoopState | null): LoopState {
  if (!state)
    throw new PermanentError(
      'the conversation history has expired (older than queue.retentionSeconds); a follow-up needs it',
    );
  return state;
}
