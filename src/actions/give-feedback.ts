import { clip } from '../log-safe.js';
import type { FeedbackEntry, Verdict } from '../records/feedback.js';
import type { TicketRef } from '../registration/source.js';
import { InvestigationNotFoundError, type FeedbackStore } from '../store/feedback-store.js';
import type { Investigation } from '../store/investigation.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { DecideReply } from './decide-calls.js';
import { candidatesOf } from './decide-for-issue.js';

export interface FeedbackDeps {
  store: InvestigationStore;
  feedback: FeedbackStore;
}

/** A verdict as a channel read it, before it is timed. */
export interface GivenFeedback {
  verdict: Verdict;
  rootCause?: string;
  note?: string;
  by: FeedbackEntry['by'];
}

/**
 * Records a person's verdict on an investigation's RCA: one path for the API, the CLI (through the API), the
 * dashboard, Slack and ticket comments. 200 `{changed, feedback}` (changed false when the person had said exactly
 * this: a replay, a double click, an edited comment); 409 when there is no RCA to judge yet; 404 when the
 * investigation is gone.
 */
export async function giveFeedback(
  deps: FeedbackDeps,
  inv: Investigation,
  given: GivenFeedback,
  now: Date = new Date(),
): Promise<DecideReply> {
  if (!inv.rca)
    return {
      status: 409,
      body: { error: `investigation has no RCA to rate yet (status: ${inv.status}): rate it once it has completed` },
    };
  try {
    const { changed, entries } = await deps.feedback.record(inv.id, { ...given, at: now.toISOString() });
    return { status: 200, body: { changed, feedback: entries } };
  } catch (err) {
    if (err instanceof InvestigationNotFoundError) return { status: 404, body: { error: err.message } };
    throw err;
  }
}

/**
 * A verdict given on a ticket (`/lestrade correct|partly|wrong` in a comment): on the ticket's latest
 * investigation that has an RCA (a re-investigation under a new identity first, then its first one).
 */
export async function giveFeedbackForIssue(
  deps: FeedbackDeps,
  issue: TicketRef,
  given: GivenFeedback,
  now: Date = new Date(),
): Promise<DecideReply> {
  const candidates = await candidatesOf(deps.store, issue);
  if (candidates.length === 0)
    return { status: 404, body: { error: `no investigation of ${issue.source} issue ${clip(issue.identity, 200)}` } };
  const inv = candidates.find((c) => c.rca) ?? candidates[0]!;
  const reply = await giveFeedback(deps, inv, given, now);
  return { status: reply.status, body: { investigation: inv.id, ...reply.body } };
}
