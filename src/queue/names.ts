export const QUEUE_NAME = 'investigations';
/** In the hash tag of every other Lestrade key: BullMQ's scripts and ours work on a Redis Cluster. */
export const QUEUE_PREFIX = '{lestrade}:bull';

export interface InvestigationJobData {
  investigationId: string;
}

export const WRITE_BACK_QUEUE_NAME = 'writebacks';

export interface WriteBackJobData {
  investigationId: string;
}

/** BullMQ job ids may not contain ':'. */
export const writeBackJobId = (investigationId: string) => `wb-${investigationId}`;
