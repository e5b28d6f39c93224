import { z } from 'zod';

/** What a person says of an RCA: right, partly right (a note says what was missing), or wrong. */
export type Verdict = 'correct' | 'partly' | 'wrong';
export const VERDICTS: readonly Verdict[] = ['correct', 'partly', 'wrong'];

/** Where a verdict was given: the API, the dashboard, the CLI, a Slack button or a ticket comment. */
export type FeedbackVia = 'api' | 'dashboard' | 'cli' | 'slack' | 'mattermost' | 'ticket';

/**
 * One person's verdict on an investigation's RCA. The latest per person (`by.via` and `by.user`) counts:
 * a second verdict from the same person replaces the first. `user` is the API token's name, the dashboard
 * session's user, the Slack user id, or for a ticket `<source>:<login>` (a GitHub login, a Jira accountId).
 */
export interface FeedbackEntry {
  verdict: Verdict;
  /** The actual root cause, as the person states it (mostly with `wrong` or `partly`). */
  rootCause?: string;
  note?: string;
  by: { via: FeedbackVia; user: string };
  /** When this verdict was given (ISO 8601); unchanged when the same verdict is given again. */
  at: string;
}

export const ROOT_CAUSE_MAX = 2000;
export const NOTE_MAX = 2000;

/** A text a person typed: trimmed; blank counts as not given. */
const text = (max: number, what: string) =>
  z
    .string({ error: `must be a string (${what})` })
    .trim()
    .max(max, { error: `must be at most ${max} characters` })
    .optional()
    .transform((s) => (s ? s : undefined));

/** POST /api/investigations/:id/feedback's body (the CLI sends `by`; with a token the token's name counts). */
export const FeedbackBodySchema = z.strictObject({
  verdict: z.enum(['correct', 'partly', 'wrong'], { error: 'must be "correct", "partly" or "wrong"' }),
  rootCause: text(ROOT_CAUSE_MAX, 'the actual root cause'),
  note: text(NOTE_MAX, 'a note'),
  by: z
    .strictObject({
      via: z.enum(['api', 'cli']),
      user: z.string().trim().min(1).max(200),
    })
    .optional(),
});
export type FeedbackBody = z.infer<typeof FeedbackBodySchema>;

/** The hash field a person's verdict is kept under: one per person and channel. */
export function feedbackField(by: FeedbackEntry['by']): string {
  return `${by.via}:${by.user}`;
}

/** Whether two entries say the same thing (verdict, root cause and note), whoever gave them and when. */
export function sameVerdict(a: FeedbackEntry, b: FeedbackEntry): boolean {
  return a.verdict === b.verdict && (a.rootCause ?? '') === (b.rootCause ?? '') && (a.note ?? '') === (b.note ?? '');
}

/** Entries oldest first (ties by person, so the order is stable). */
export function oldestFirst(entries: readonly FeedbackEntry[]): FeedbackEntry[] {
  return [...entries].sort(
    (a, b) => a.at.localeCompare(b.at) || feedbackField(a.by).localeCompare(feedbackField(b.by)),
  );
}

/** Whether a value read back from Redis is a FeedbackEntry (damaged or foreign fields are skipped). */
export function isFeedbackEntry(value: unknown): value is FeedbackEntry {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<FeedbackEntry>;
  return (
    (VERDICTS as readonly unknown[]).includes(v.verdict) &&
    typeof v.at === 'string' &&
    typeof v.by === 'object' &&
    v.by !== null &&
    typeof v.by.user === 'string' &&
    typeof v.by.via === 'string'
  );
}
