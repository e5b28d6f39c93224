/**
 * Note writes this process has sent and not yet seen through, by alert and RCA digest.
 * `requestId` null: the POST got no answer (dropped, timed out, 5xx), so it may have been
 * accepted; the note may still appear.
 */
export interface PendingNote {
  requestId: string | null;
  at: number;
}

const MAX_ENTRIES = 1_000;

/**
 * Per writer, in memory, and carried between processes as a resume token: a retry, here or in
 * another worker, polls the request already made instead of adding the note again.
 */
export class PendingNotes {
  private readonly entries = new Map<string, PendingNote>();

  constructor(private readonly now: () => number) {}

  static key(alertId: string, sha: string): string {
    return `${alertId}|${sha}`;
  }

  get(key: string): PendingNote | undefined {
    return this.entries.get(key);
  }

  set(key: string, requestId: string | null): PendingNote {
    const entry = { requestId, at: this.now() };
    this.entries.delete(key);
    this.entries.set(key, entry);
    // Oldest first in a Map: abandoned writes cannot grow it without bound.
    for (const k of this.entries.keys()) {
      if (this.entries.size <= MAX_ENTRIES) break;
      this.entries.delete(k);
    }
    return entry;
  }

  /** A pending write as a token the engine keeps between attempts (possibly in other processes). */
  static token(key: string, entry: PendingNote): string {
    return JSON.stringify({ key, requestId: entry.requestId, at: entry.at });
  }

  /** Takes over a pending write another attempt left as a token, if it is for this key. */
  adopt(key: string, token: string | null): PendingNote | undefined {
    if (!token) return undefined;
    try {
      const t = JSON.parse(token) as { key?: unknown; requestId?: unknown; at?: unknown };
      if (t.key !== key || typeof t.at !== 'number' || (t.requestId !== null && typeof t.requestId !== 'string'))
        return undefined;
      const entry = { requestId: t.requestId, at: t.at };
      this.entries.set(key, entry);
      return entry;
    } catch {
      return undefined;
    }
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  ageMs(entry: PendingNote): number {
    return this.now() - entry.at;
  }
}
