/** A runbook an investigation was offered (`matched`: listed in its prompt) or read (`fetched`, by id or URL). */
export interface RunbookUse {
  /** The catalog id (`db/pool-exhaustion`), or the URL read. */
  id: string;
  title: string;
  how: 'matched' | 'fetched';
}
