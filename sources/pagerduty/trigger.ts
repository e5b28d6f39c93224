import { z } from 'zod';
import { readJson } from '../../src/read-json.js';
import type { PagerDutyTriggers } from './config.js';
import { carriesAnyMarker } from './marker.js';
import { IncidentNoteDataSchema, IncidentSchema, WebhookEnvelopeSchema, type PdIncident } from './schema.js';

/** What a V3 webhook event asks of Lestrade, decided from the payload alone. */
export type Decision =
  | { kind: 'investigate'; incident: PdIncident }
  | { kind: 'resolve'; incident: PdIncident }
  | { kind: 'ignore'; reason: string };

const IncidentEventSchema = z.looseObject({ event: z.looseObject({ data: IncidentSchema }) });
const NoteEventSchema = z.looseObject({ event: z.looseObject({ data: IncidentNoteDataSchema }) });

const sameName = (a: string, b: string) => a.localeCompare(b, undefined, { sensitivity: 'accent' }) === 0;

/** Why a triggered incident is outside sources.pagerduty.triggers, or null when it is inside. */
export function filterReason(i: PdIncident, t: PagerDutyTriggers): string | null {
  const service = i.service?.id;
  if (t.services.length && !(service && t.services.includes(service))) {
    return `${i.id}: service ${service ?? '(none)'} is not in sources.pagerduty.triggers.services`;
  }
  if (!t.urgencies.some((u) => u === i.urgency))
    return `${i.id}: urgency ${i.urgency ?? '(none)'} is not in sources.pagerduty.triggers.urgencies`;
  const priority = i.priority?.summary ?? '';
  if (t.priorities.length && !t.priorities.some((p) => sameName(p, priority))) {
    return `${i.id}: priority ${priority || '(none)'} is not in sources.pagerduty.triggers.priorities`;
  }
  return null;
}

/**
 * incident.triggered inside the filters → investigate; incident.resolved → mark resolved
 * (whatever the filters: it only touches an investigation that exists); incident.annotated →
 * nothing, ours (our marker) or not; every other event → nothing, with the reason.
 */
export function decideEvent(body: unknown, t: PagerDutyTriggers): Decision {
  const type = readJson(body, WebhookEnvelopeSchema).event.event_type;
  if (type === 'incident.triggered') {
    const incident = readJson(body, IncidentEventSchema).event.data;
    const reason = filterReason(incident, t);
    return reason ? { kind: 'ignore', reason } : { kind: 'investigate', incident };
  }
  if (type === 'incident.resolved')
    return { kind: 'resolve', incident: readJson(body, IncidentEventSchema).event.data };
  if (type === 'incident.annotated') {
    const note = readJson(body, NoteEventSchema).event.data;
    return carriesAnyMarker(note.content)
      ? { kind: 'ignore', reason: `note on ${note.incident.id} is our own (it carries our marker)` }
      : { kind: 'ignore', reason: `a note on ${note.incident.id} starts nothing` };
  }
  return { kind: 'ignore', reason: `event ${type} starts nothing` };
}
