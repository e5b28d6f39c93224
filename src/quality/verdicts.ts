import type { FeedbackEntry, Verdict } from '../records/feedback.js';

/** Worst first: a tie between verdicts goes to the worse one. */
const WORST_FIRST: readonly Verdict[] = ['wrong', 'partly', 'correct'];

/** Who gave a verdict: the same user through two channels (a Slack id, a token's name) counts twice. */
const personOf = (e: FeedbackEntry): string => `${e.by.via}\u0000${e.by.user}`;

/** Each person's latest verdict (by `at`; the later one in the list when two share a time). */
export function latestPerPerson(entries: readonly FeedbackEntry[]): FeedbackEntry[] {
  const latest = new Map<string, FeedbackEntry>();
  for (const e of entries) {
    const seen = latest.get(personOf(e));
    if (!seen || Date.parse(e.at) >= Date.parse(seen.at)) latest.set(personOf(e), e);
  }
  return [...latest.values()];
}

/**
 * The investigation's verdict: the most common of the latest verdict of each person, a tie going to
 * the worse verdict (wrong, then partly, then correct); null when nobody rated it.
 */
export function consensus(entries: readonly FeedbackEntry[]): Verdict | null {
  const counts = new Map<Verdict, number>();
  for (const e of latestPerPerson(entries)) counts.set(e.verdict, (counts.get(e.verdict) ?? 0) + 1);
  let best: Verdict | null = null;
  for (const v of WORST_FIRST) if ((counts.get(v) ?? 0) > (best ? counts.get(best)! : 0)) best = v;
  return best;
}

/** The root cause people stated with a `wrong` verdict: the latest such, among each person's latest verdict. */
export function statedRootCause(entries: readonly FeedbackEntry[]): string | null {
  const wrong = latestPerPerson(entries)
    .filter((e) => e.verdict === 'wrong' && e.rootCause?.trim())
    .sort((a, b) => Date.parse(b.at) - Date.parse(a.at));
  return wrong[0]?.rootCause?.trim() ?? null;
}
