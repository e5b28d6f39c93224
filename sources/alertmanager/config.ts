import { z } from 'zod';
import type { EnvBinding } from '../../src/registration/source.js';

const investigateBy = z.enum(['alert', 'group']);

export const AlertmanagerConfigSchema = z.strictObject({
  /** Bearer token(s) the webhook must carry; comma-separate several to rotate. */
  bearerToken: z.string().min(1).optional(),
  basicAuth: z.strictObject({ username: z.string().min(1), password: z.string().min(1) }).optional(),
  /** With neither bearerToken nor basicAuth, take unauthenticated deliveries anyway; else they are refused (401). */
  allowUnauthenticated: z.boolean().default(false),
  /** Alertmanager's base URL for pull mode (`lestrade investigate alertmanager`). */
  url: z.url().optional(),
  /** Alerts taken from one delivery; the rest are reported in the reply's truncatedAlerts. */
  maxAlertsPerDelivery: z.int().min(1).max(100_000).default(1000),
  /**
   * alert: one investigation per firing alert. group: the alerts of one Alertmanager group
   * (groupKey) firing together become one investigation.
   */
  investigateBy: investigateBy.default('alert'),
  /** Per alertname, overrides investigateBy. */
  investigateByAlertname: z.record(z.string(), investigateBy).default({}),
  /** A group's follow-up investigation (alerts arriving once its investigation started) starts after the group has been quiet this long... */
  groupQuietSeconds: z.number().min(0).max(86_400).default(120),
  /** ...or at the latest this long after the follow-up was created. */
  groupMaxWaitSeconds: z.number().min(0).max(86_400).default(900),
});
export type AlertmanagerConfig = z.infer<typeof AlertmanagerConfigSchema>;

export const ALERTMANAGER_ENV: EnvBinding[] = [
  ['ALERTMANAGER_WEBHOOK_TOKEN', ['bearerToken'], 'string'],
  ['ALERTMANAGER_ALLOW_UNAUTHENTICATED', ['allowUnauthenticated'], 'boolean'],
  ['ALERTMANAGER_URL', ['url'], 'string'],
  ['LESTRADE_AM_INVESTIGATE_BY', ['investigateBy'], 'string'],
];
