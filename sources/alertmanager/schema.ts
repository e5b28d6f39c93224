import { z } from 'zod';

/**
 * Alertmanager's webhook payload, version 4, as in webhook-v4.schema.json (written from
 * notify/webhook/webhook.go and template/template.go). Unknown extra keys are allowed,
 * as newer Alertmanagers add some (notification_reason in 0.32, routeLabels in 0.34).
 */

/**
 * Labels and annotations. Every key stays data: z.record assigns keys onto a plain object, so a
 * label named "__proto__" (an own key after JSON.parse) would vanish; Object.fromEntries defines it.
 */
const kv = z.unknown().transform((value, ctx): Record<string, string> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    ctx.addIssue({ code: 'custom', message: `expected an object of strings, received ${kindOf(value)}` });
    return z.NEVER;
  }
  const entries = Object.entries(value);
  for (const [k, v] of entries) {
    if (typeof v !== 'string')
      ctx.addIssue({ code: 'custom', path: [k], message: `expected string, received ${kindOf(v)}` });
  }
  return Object.fromEntries(entries);
});

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  return Array.isArray(v) ? 'array' : typeof v;
}

/**
 * What Alertmanager sends for a time: Go's time.Time marshalled as JSON, i.e. RFC 3339 with up to
 * nine fractional digits, "Z" or a numeric offset, and 0001-01-01T00:00:00Z for "unset". The same
 * pattern is in webhook-v4.schema.json.
 */
export const RFC3339_PATTERN =
  '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$';
const timestamp = z
  .string()
  .regex(new RegExp(RFC3339_PATTERN), 'must be an RFC 3339 timestamp, e.g. 2024-01-01T00:00:00.123456789Z');

export const WebhookAlertSchema = z.object({
  status: z.enum(['firing', 'resolved']),
  labels: kv,
  annotations: kv,
  startsAt: timestamp,
  endsAt: timestamp,
  generatorURL: z.string(),
  fingerprint: z.string().regex(/^[0-9a-f]{16}$/, 'must be 16 lower-case hex digits'),
});
export type WebhookAlert = z.infer<typeof WebhookAlertSchema>;

export const WebhookPayloadSchema = z.object({
  version: z.literal('4'),
  groupKey: z.string(),
  // A Go uint64: past 2^53 it is still an integer, though not a safe one (z.int() refuses those).
  truncatedAlerts: z.number().min(0).refine(Number.isInteger, 'must be an integer'),
  receiver: z.string(),
  status: z.enum(['firing', 'resolved']),
  alerts: z.array(WebhookAlertSchema),
  groupLabels: kv,
  commonLabels: kv,
  commonAnnotations: kv,
  externalURL: z.string(),
  notification_reason: z.string().optional(),
  routeLabels: kv.optional(),
});
export type WebhookPayload = z.infer<typeof WebhookPayloadSchema>;

/** One alert as Alertmanager's API v2 GET /api/v2/alerts returns it (gettableAlert). */
export const ApiAlertSchema = z.object({
  labels: kv,
  annotations: kv,
  startsAt: timestamp,
  endsAt: timestamp,
  updatedAt: timestamp,
  fingerprint: z.string(),
  generatorURL: z.string().optional(),
  receivers: z.array(z.object({ name: z.string() })),
  status: z.object({
    state: z.enum(['unprocessed', 'active', 'suppressed']),
    silencedBy: z.array(z.string()),
    inhibitedBy: z.array(z.string()),
  }),
});
export type ApiAlert = z.infer<typeof ApiAlertSchema>;
export const ApiAlertsSchema = z.array(ApiAlertSchema);
