import type { CheckOutcome } from '../records/check-result.js';
import type { Investigation } from '../store/investigation.js';

/**
 * The check an investigation of source `check` ran and what it found (docs/checks.md), or null for every
 * other investigation. The record's `check` field is written by the checks' runs; read here without
 * assuming more of the record than that it may carry one.
 */
export function checkOf(inv: Investigation): CheckOutcome | null {
  const check = (inv as Investigation & { check?: CheckOutcome | null }).check;
  return check && typeof check.name === 'string' && typeof check.status === 'string' ? check : null;
}
