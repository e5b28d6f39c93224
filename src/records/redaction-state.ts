/**
 * The placeholders of one investigation (src/redaction/): each placeholder (`<email-1>`) and the value it stands
 * for. Kept in the loop state, so it is checkpointed with the conversation and a run resumed on another worker
 * numbers the same values the same way. The values are private: this object never goes into a log, an API
 * response or a prompt (only the placeholders do).
 */
export interface RedactionState {
  placeholders: Record<string, string>;
}

/** How many values of each kind were replaced (`{email: 3, ip: 7}`): the record's and the API's `redactions`. */
export function redactionCounts(state: RedactionState | undefined): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const placeholder of Object.keys(state?.placeholders ?? {})) {
    const kind = kindOf(placeholder);
    if (kind) counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
}

/** `<email-12>` → `email`; null for anything that is not a placeholder. */
export function kindOf(placeholder: string): string | null {
  const m = /^<([a-z][a-z0-9_-]*)-\d+>$/.exec(placeholder);
  return m ? m[1]! : null;
}
