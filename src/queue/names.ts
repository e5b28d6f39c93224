export const QUEUE_NAME = 'investigations';
export const QUEUE_PREFIX = 'lestrade:bull';

export interface InvestigationJobData {
  investigationId: string;
}
