import { z } from 'zod';

/**
 * The parts of PagerDuty's REST answers and V3 webhook events Lestrade reads (pagerduty-subset.json
 * and the webhooks V3 docs). Objects stay loose: PagerDuty adds fields often.
 */
const Ref = z.looseObject({ id: z.string(), summary: z.string().nullish(), html_url: z.string().nullish() });

/** An incident as REST answers it and as V3 webhooks carry it (`number` there, `incident_number` here). */
export const IncidentSchema = z.looseObject({
  id: z.string().min(1),
  incident_number: z.int().optional(),
  number: z.int().optional(),
  title: z.string().default(''),
  status: z.string(),
  urgency: z.string().nullish(),
  priority: Ref.nullish(),
  service: Ref.nullish(),
  html_url: z.string().nullish(),
  created_at: z.string(),
  incident_key: z.string().nullish(),
});
export type PdIncident = z.infer<typeof IncidentSchema>;

export const AlertSchema = z.looseObject({
  id: z.string(),
  summary: z.string().nullish(),
  status: z.string().optional(),
  severity: z.string().nullish(),
  alert_key: z.string().nullish(),
  created_at: z.string().optional(),
  body: z.looseObject({ details: z.unknown().optional(), cef_details: z.unknown().optional() }).nullish(),
});
export type PdAlert = z.infer<typeof AlertSchema>;

export const NoteSchema = z.looseObject({
  id: z.string(),
  content: z.string(),
  created_at: z.string().optional(),
  user: Ref.nullish(),
});
export type PdNote = z.infer<typeof NoteSchema>;

/** Offset paging: `more` says whether another page follows. */
const Page = { limit: z.int().nullish(), offset: z.int().nullish(), more: z.boolean().nullish() };
export const IncidentPageSchema = z.looseObject({ incidents: z.array(IncidentSchema), ...Page });
export const AlertPageSchema = z.looseObject({ alerts: z.array(AlertSchema), ...Page });
export const NotesSchema = z.looseObject({ notes: z.array(NoteSchema) });
export const UserPageSchema = z.looseObject({
  users: z.array(z.looseObject({ id: z.string(), email: z.string().nullish() })),
  more: z.boolean().nullish(),
});
export const NoteAnswerSchema = z.looseObject({ note: NoteSchema });

/** The V3 envelope: one event per delivery; `data` depends on `event_type`. */
export const WebhookEnvelopeSchema = z.looseObject({
  event: z.looseObject({
    id: z.string().optional(),
    event_type: z.string().min(1),
    resource_type: z.string().optional(),
    occurred_at: z.string().optional(),
    agent: z.looseObject({ id: z.string().optional(), type: z.string().optional() }).nullish(),
    data: z.unknown(),
  }),
});

/** `incident.annotated`: the note just added (its content may be `trimmed`). */
export const IncidentNoteDataSchema = z.looseObject({
  incident: Ref,
  id: z.string().optional(),
  content: z.string().default(''),
  trimmed: z.boolean().optional(),
});
