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
 * In memory, per writer: a retry in the same process polls the request it already made
 * instead of adding the note again. (Another process retrying relies on find() seeing the note.)
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

  delete(key: string): void {
    this.entries.delete(key);
  }

  ageMs(entry: PendingNote): number {
    return this.now() - entry.at;
  }
}
