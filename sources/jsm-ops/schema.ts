import { z } from 'zod';

/**
 * The parts of JSM Operations alert API answers Lestrade reads (Atlassian's swagger.v3.json:
 * AlertResponse, ListAlertResponse, AlertNote, GetAlertNotesResponse, GetRequestStatusResponse).
 */
const Str = z.string().nullish();

export const JsmAlertSchema = z.object({
  id: z.string().min(1),
  tinyId: Str,
  alias: Str,
  message: Str,
  description: Str,
  status: Str,
  tags: z.array(z.string()).nullish(),
  priority: Str,
  entity: Str,
  source: Str,
  createdAt: Str,
  updatedAt: Str,
  /** A string map; checked as an object and read as parsed (see detailsOf). */
  extraProperties: z
    .custom<Record<string, unknown>>(
      (v) => v === null || v === undefined || (typeof v === 'object' && !Array.isArray(v)),
    )
    .optional(),
});
export type JsmAlert = z.infer<typeof JsmAlertSchema>;

const Links = z.object({ next: Str }).nullish();

export const ListAlertsSchema = z.object({
  values: z.array(JsmAlertSchema),
  count: z.number().nullish(),
  links: Links,
});

export const JsmNoteSchema = z.object({ id: z.string().min(1), note: Str, owner: Str, createdAt: Str });

export const ListNotesSchema = z.object({ values: z.array(JsmNoteSchema), links: Links });

/**
 * POST …/notes: the spec says 200 with the AlertNote; a third-party client (rrvrs/jira-alerts-mcp)
 * reads a 202 `{result, requestId, took}` to poll. Either is accepted.
 */
export const AddNoteAnswerSchema = z.union([
  JsmNoteSchema.transform((n) => ({ kind: 'note' as const, id: n.id })),
  z.object({ requestId: z.string().min(1) }).transform((r) => ({ kind: 'request' as const, requestId: r.requestId })),
]);

export const RequestStatusSchema = z.object({ isSuccess: z.boolean().nullish(), status: Str, alertId: Str });

export const TenantInfoSchema = z.object({ cloudId: z.string().regex(/^[\w-]+$/) });

/** JSM's error bodies: `{errors: [{title, code}]}`, or `{code, message}` for 401. */
export function jsmReason(body: unknown): string {
  if (typeof body === 'string') return body.slice(0, 300);
  if (!body || typeof body !== 'object') return '';
  const b = body as { errors?: unknown; message?: unknown };
  const errors = Array.isArray(b.errors)
    ? b.errors.map((e) =>
        [(e as { title?: unknown }).title, (e as { code?: unknown }).code]
          .filter((x) => typeof x === 'string' && x)
          .join(' '),
      )
    : [];
  return [...errors, typeof b.message === 'string' ? b.message : ''].filter(Boolean).join('; ');
}
