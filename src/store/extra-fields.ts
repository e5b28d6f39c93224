/** What storms added to a record: priority, skips, waiting, groups, cost. */
export interface StormFields {
  /** The job's BullMQ priority (lower first). */
  priority: number | null;
  /** The skip rule that matched; the record is `skipped` and no investigation runs. */
  skippedBy: string | null;
  /** Why a queued investigation ended without running (e.g. its issue resolved first). */
  skipReason: string | null;
  /** Why a queued investigation still waits (a budget, a group's quiet time), and until about when. */
  waitingReason: string | null;
  waitingUntil: string | null;
  /** A group's follow-up: the investigation of the same group that had started when this one was created. */
  followUpOf: string | null;
  /** What the model calls cost, at the configured price: null until counted, `amount` null when the model has no price. */
  cost: { amount: number | null; currency: string; model: string } | null;
  /** For a group: when its last member joined (ms), and the follow-up's quiet time and longest wait. */
  coalescing: { lastJoinedAt: number; quietMs: number; maxWaitMs: number } | null;
}

/** The record's field holding the cost of follow-up question `entry` (the investigation's own is `cost`). */
export const questionCostField = (entry: number): string => `cost:ask:${entry}`;

export function extraFields(h: Record<string, string | undefined>): StormFields {
  return {
    priority: h.priority ? Number(h.priority) : null,
    skippedBy: h.skippedBy || null,
    skipReason: h.skipReason || (h.skippedBy ? `matched skip rule ${h.skippedBy}` : null),
    waitingReason: h.waitingReason || null,
    waitingUntil: h.waitingUntil || null,
    followUpOf: h.followUpOf || null,
    cost: h.cost ? (JSON.parse(h.cost) as StormFields['cost']) : null,
    coalescing: h.group
      ? {
          lastJoinedAt: Number(h.lastJoinedAt ?? 0),
          quietMs: Number(h.quietMs ?? 0),
          maxWaitMs: Number(h.maxWaitMs ?? 0),
        }
      : null,
  };
}
