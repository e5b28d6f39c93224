import { z } from 'zod';

/**
 * The parts of OpsGenie Alert API v2 answers that Lestrade reads (opsgenie-oas swagger.json:
 * BaseAlert, Alert, AlertNote, AlertRequestStatus, SuccessResponse). Unknown fields pass.
 */
const Str = z.string().nullish();

export const BaseAlertSchema = z.object({
  id: z.string().min(1),
  tinyId: Str,
  alias: Str,
  message: Str,
  status: Str,
  tags: z.array(z.string()).nullish(),
  priority: Str,
  source: Str,
  owner: Str,
  createdAt: Str,
  updatedAt: Str,
  entity: Str,
  description: Str,
  /** Only GET /v2/alerts/{id} has it; checked as an object, read as parsed (see detailsOf). */
  details: z
    .custom<Record<string, unknown>>(
      (v) => v === null || v === undefined || (typeof v === 'object' && !Array.isArray(v)),
    )
    .optional(),
});
export type OgAlert = z.infer<typeof BaseAlertSchema>;

export const ListAlertsSchema = z.object({
  data: z.array(BaseAlertSchema),
  paging: z.object({ next: Str }).nullish(),
});

export const GetAlertSchema = z.object({ data: BaseAlertSchema });

export const AlertNoteSchema = z.object({
  note: z.string().nullish(),
  owner: Str,
  createdAt: Str,
  offset: Str,
});

export const ListNotesSchema = z.object({
  data: z.array(AlertNoteSchema),
  paging: z.object({ next: Str }).nullish(),
});

/** 202 Accepted: `{result, took, requestId}`. */
export const AcceptedSchema = z.object({ requestId: z.string().min(1), result: Str });

export const RequestStatusSchema = z.object({
  data: z.object({
    isSuccess: z.boolean().nullish(),
    status: Str,
    alertId: Str,
    action: Str,
    processedAt: Str,
  }),
});

/** OpsGenie's error body: `{message, took, requestId}` (422s may add `errors`: field → reason). */
export function opsgenieReason(body: unknown): string {
  if (typeof body === 'string') return body.slice(0, 300);
  if (!body || typeof body !== 'object') return '';
  const b = body as { message?: unknown; errors?: unknown };
  const message = typeof b.message === 'string' ? b.message : '';
  const fields =
    b.errors && typeof b.errors === 'object' ? Object.entries(b.errors).map(([k, v]) => `${k}: ${String(v)}`) : [];
  return [message, ...fields].filter(Boolean).join('; ');
}
