export const QUEUE_NAME = 'investigations';
export const QUEUE_PREFIX = 'lestrade:bull';

export interface InvestigationJobData {
  investigationId: string;
}

export const WRITE_BACK_QUEUE_NAME = 'writebacks';

export interface WriteBackJobData {
  investigationId: string;
}

/** BullMQ job ids may not contain ':'. */
export const writeBackJobId = (investigationId: string) => `wb-${investigationId}`;
