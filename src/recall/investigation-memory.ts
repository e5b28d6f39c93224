import type { Issue } from '../issue.js';
import type { Logger } from '../log.js';
import type { MemoryStore } from '../memory/memory-store.js';
import { memoryQueryOf, type MemoryRecord, type SimilarIncident } from '../memory/memory-record.js';
import type { PastVerdict, SimilarPast } from '../records/past-incident.js';
import type { InvestigationStore } from '../store/investigation-store.js';
import type { Investigation } from '../store/investigation.js';
import { rootCauseOf } from './root-cause-of.js';

const HOUR_MS = 3_600_000;

export interface InvestigationMemoryOptions {
  /** memory.identifyingLabels. */
  identifyingLabels: readonly string[];
  /** memory.reuseConfirmed: write back a confirmed predecessor's RCA instead of running the model. */
  reuseConfirmed: boolean;
  /** memory.reuseWithinHours: how recently that predecessor must have finished. */
  reuseWithinHours: number;
}

/** What memory offers a fresh run: similar past incidents for its prompt, or a confirmed predecessor to reuse. */
export interface Recalled {
  similar: SimilarPast[];
  /** The confirmed predecessor whose RCA is written back instead of running the model; null: run the model. */
  reuse: Investigation | null;
}

/** A person's verdict as the feedback channels hand it over (src/records/feedback.ts's FeedbackEntry). */
export interface GivenVerdict {
  verdict: PastVerdict;
  rootCause?: string;
  by: { user: string };
  /** When it was given (ISO 8601). */
  at?: string;
}

/**
 * What memory does for investigations (docs/memory.md): before a fresh run it finds similar past incidents
 * (recorded on the investigation, shown to the model) and, when memory.reuseConfirmed is on, a confirmed
 * predecessor of the same alert to reuse; a completed investigation is remembered; a verdict updates its memory.
 */
export class InvestigationMemory {
  constructor(
    private readonly memory: MemoryStore,
    private readonly store: InvestigationStore,
    private readonly opts: InvestigationMemoryOptions,
    private readonly log?: Pick<Logger, 'info'>,
    /** People's verdicts so far (FeedbackStore.list), oldest first: one given before the memory existed still counts. */
    private readonly verdicts?: { list(investigationId: string): Promise<GivenVerdict[]> },
  ) {}

  /** Before a fresh run (its first, or a re-run): similar past incidents, recorded on the investigation. */
  async recall(inv: Investigation, issue: Issue, now = Date.now()): Promise<Recalled> {
    const found = await this.memory.findSimilar(memoryQueryOf(issue, this.opts.identifyingLabels), {
      excludeId: inv.id,
    });
    const similar = found.map(toSimilarPast);
    // A re-run is someone asking for the model: never answered from memory.
    const reuse = this.opts.reuseConfirmed && (inv.run ?? 1) === 1 ? await this.predecessor(issue, found, now) : null;
    await this.store.saveMemoryUse(inv.id, { similar, reused: reuse ? { from: reuse.id } : null });
    if (reuse) this.log?.info({ id: inv.id, from: reuse.id }, 'confirmed RCA reused from memory; no model run');
    return { similar, reuse };
  }

  /**
   * Remembers a completed investigation (again after a re-run: its RCA's root cause replaces the last), with the
   * placeholders of its redaction mapped back: another investigation's prompt numbers the values its own way (its
   * requests are redacted again at the door), and `<ip-1>` of this one would read as `<ip-1>` of that one.
   */
  async remember(inv: Investigation, now = Date.now()): Promise<void> {
    if (inv.status !== 'completed' || !inv.rca) return;
    await this.memory.remember(recordOf(await this.store.restored(inv), now));
    // A verdict given between completion and now found no memory to update: the latest one counts here.
    const latest = (await this.verdicts?.list(inv.id))?.at(-1);
    if (latest) await this.verdictGiven(inv.id, latest);
  }

  /** A person's verdict (and stated root cause) on an investigation's RCA; false when it is not remembered. */
  async verdictGiven(investigationId: string, given: GivenVerdict): Promise<boolean> {
    return this.memory.setVerdict(investigationId, {
      verdict: given.verdict,
      ...(given.rootCause ? { rootCause: given.rootCause } : {}),
      by: given.by.user,
    });
  }

  /**
   * The newest confirmed-correct predecessor within memory.reuseWithinHours that is the same alert (same
   * fingerprint) or of the same group, whose RCA is still stored.
   */
  private async predecessor(issue: Issue, found: SimilarIncident[], now: number): Promise<Investigation | null> {
    const windowMs = this.opts.reuseWithinHours * HOUR_MS;
    const confirmed = found
      .filter((s) => s.verdict === 'correct' && now - Date.parse(s.at) <= windowMs)
      .sort((a, b) => b.at.localeCompare(a.at));
    for (const s of confirmed) {
      if (!s.sameFingerprint && !(await this.sameGroup(issue, s.id))) continue;
      const past = await this.store.get(s.id);
      if (past?.status === 'completed' && past.rca && (await this.confirmedSinceRun(past))) return past;
    }
    return null;
  }

  /**
   * Whether people's latest verdict is "correct" and was given after the RCA now stored: a verdict on an earlier
   * run (before a re-run replaced the RCA) confirms an answer that is no longer there. Without the feedback
   * store (tests, the CLI) memory's verdict is taken as it is.
   */
  private async confirmedSinceRun(past: Investigation): Promise<boolean> {
    if (!this.verdicts) return true;
    const latest = (await this.verdicts.list(past.id)).at(-1);
    if (latest?.verdict !== 'correct') return false;
    return !latest.at || !past.finishedAt || latest.at >= past.finishedAt;
  }

  private async sameGroup(issue: Issue, id: string): Promise<boolean> {
    if (!issue.group) return false;
    return (await this.memory.get(id))?.groupKey === issue.group.key;
  }
}

function toSimilarPast(s: SimilarIncident): SimilarPast {
  return {
    id: s.id,
    title: s.title,
    at: s.at,
    score: s.score,
    verdict: s.verdict,
    rootCause: s.rootCause,
    rootCauseBy: s.rootCauseBy,
    ...(s.confirmedBy ? { confirmedBy: s.confirmedBy } : {}),
    sameFingerprint: s.sameFingerprint,
  };
}

/** The compact memory of a completed investigation: the RCA's root-cause section, no verdict yet. */
function recordOf(inv: Investigation, now: number): MemoryRecord {
  const issue = inv.issue;
  const alertName = Object.hasOwn(issue.labels, 'alertname') ? issue.labels.alertname : undefined;
  return {
    investigationId: inv.id,
    source: inv.source,
    fingerprint: issue.fingerprint,
    ...(issue.locator ? { locatorKey: issue.locator.key } : {}),
    ...(issue.group ? { groupKey: issue.group.key } : {}),
    ...(alertName ? { alertName } : {}),
    labels: issue.labels,
    title: inv.title,
    rootCause: rootCauseOf(inv.rca ?? ''),
    rootCauseBy: 'rca',
    verdict: null,
    at: inv.finishedAt ?? new Date(now).toISOString(),
  };
}
