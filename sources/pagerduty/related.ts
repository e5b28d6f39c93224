import type { Issue } from '../../src/issue.js';
import { alertIdentity } from '../common/alert-identity.js';
import type { AmDetails } from './alert-details.js';

/** The source name of Lestrade's Alertmanager source, whose identities `related` points at. */
export const ALERTMANAGER_SOURCE = 'alertmanager';

/**
 * The Alertmanager alerts an incident is made of, as our Alertmanager source knows them:
 * fingerprint@startsAt of every firing alert that carries both (only the JSON format, 0.30+, does).
 * Intake links the incident to their investigations when every one is investigated already. Pure.
 */
export function relatedOf(details: readonly AmDetails[]): NonNullable<Issue['related']> {
  const identities = new Set<string>();
  for (const d of details) {
    for (const a of d.firing) if (a.fingerprint && a.startsAt) identities.add(alertIdentity(a.fingerprint, a.startsAt));
  }
  return [...identities].map((identity) => ({ source: ALERTMANAGER_SOURCE, identity }));
}
