export const QUEUE_NAME = 'investigations';
export const QUEUE_PREFIX = 'lestrade:bull';

export interface InvestigationJobData {
  investigationId: string;
  /** Which run the job is for: the investigation (the default) or its follow-up question. */
  phase?: 'investigation' | 'ask';
  /** Set on the delayed job that expires pause number `expireSeq` if nobody decided by then. */
  expireSeq?: number;
}

export const WRITE_BACK_QUEUE_NAME = 'writebacks';

export interface WriteBackJobData {
  investigationId: string;
}

/** BullMQ job ids may not contain ':'. */
export const writeBackJobId = (investigationId: string) => `wb-${investigationId}`;
