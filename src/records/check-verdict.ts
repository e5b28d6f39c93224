import type { CheckStatus } from './check-result.js';

/** What the model reported through `report_check_result` (a check run's verdict, before the state decides anything). */
export interface CheckVerdict {
  status: Exclude<CheckStatus, 'error'>;
  summary: string;
  evidence: string[];
}
