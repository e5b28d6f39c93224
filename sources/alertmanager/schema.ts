import { z } from 'zod';

/**
 * Alertmanager's webhook payload, version 4, as in webhook-v4.schema.json (written from
 * notify/webhook/webhook.go and template/template.go). Unknown extra keys are allowed,
 * as newer Alertmanagers add some (notification_reason in 0.32, routeLabels in 0.34).
 */
const kv = z.record(z.string(), z.string());

export const WebhookAlertSchema = z.object({
  status: z.enum(['firing', 'resolved']),
  labels: kv,
  annotations: kv,
  startsAt: z.string(),
  endsAt: z.string(),
  generatorURL: z.string(),
  fingerprint: z.string().regex(/^[0-9a-f]{16}$/, 'must be 16 lower-case hex digits'),
});
export type WebhookAlert = z.infer<typeof WebhookAlertSchema>;

export const WebhookPayloadSchema = z.object({
  version: z.literal('4'),
  groupKey: z.string(),
  truncatedAlerts: z.int().min(0),
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
  startsAt: z.string(),
  endsAt: z.string(),
  updatedAt: z.string(),
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
