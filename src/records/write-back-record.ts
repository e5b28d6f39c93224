/**
 * One write-back of an investigation's RCA, as the API shows it.
 * pending: queued or being retried; written: the vendor has our comment; failed: given up (the
 * vendor's reason in `error`); refused: policy forbids writing there; superseded: a newer
 * investigation of the same issue has already written.
 */
export type WriteBackStatus = 'pending' | 'written' | 'failed' | 'refused' | 'superseded';

export interface WriteBackRecord {
  /** The issue written to, e.g. "octo/app#12" or "OPS-7"; for a destination, e.g. "slack:#alerts". */
  target: string;
  /** Set on a routed destination's write-back: the route's destination as written ("slack:#alerts", "teams"). */
  destination?: string;
  status: WriteBackStatus;
  commentId: string | null;
  url: string | null;
  attempts: number;
  error: string | null;
  updatedAt: string;
}
