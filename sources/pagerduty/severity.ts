import type { Severity } from '../../src/issue.js';

/**
 * PagerDuty's default priority names (P1–P5) and the common SEV1–SEV5 scheme, normalised to
 * lower-case letters and digits ("SEV-1" → "sev1"). A Map: a vendor's string never reaches
 * Object.prototype ("constructor", "__proto__").
 */
const BY_PRIORITY: ReadonlyMap<string, Severity> = new Map([
  ['p1', 'critical'],
  ['p2', 'high'],
  ['p3', 'warning'],
  ['p4', 'info'],
  ['p5', 'info'],
  ['sev1', 'critical'],
  ['sev2', 'high'],
  ['sev3', 'warning'],
  ['sev4', 'info'],
  ['sev5', 'info'],
]);

/** High urgency pages someone; low urgency only notifies. */
const BY_URGENCY: ReadonlyMap<string, Severity> = new Map([
  ['high', 'high'],
  ['low', 'warning'],
]);

/** The incident's priority when the account uses a known scheme, else its urgency, else unknown. */
export function severityOf(priority: string | null | undefined, urgency: string | null | undefined): Severity {
  const p = priority ? BY_PRIORITY.get(priority.toLowerCase().replace(/[^a-z0-9]/g, '')) : undefined;
  return p ?? (urgency ? BY_URGENCY.get(urgency.toLowerCase()) : undefined) ?? 'unknown';
}
