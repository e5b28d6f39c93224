import { z } from 'zod';
import type { EnvBinding } from '../../src/source.js';

export const AlertmanagerConfigSchema = z.strictObject({
  /** Bearer token(s) the webhook must carry; comma-separate several to rotate. */
  bearerToken: z.string().min(1).optional(),
  basicAuth: z.strictObject({ username: z.string().min(1), password: z.string().min(1) }).optional(),
  /** Alertmanager's base URL for pull mode (`lestrade investigate alertmanager`). */
  url: z.url().optional(),
  /** Alerts taken from one delivery; the rest are reported in the reply's truncatedAlerts. */
  maxAlertsPerDelivery: z.int().min(1).max(100_000).default(1000),
});
export type AlertmanagerConfig = z.infer<typeof AlertmanagerConfigSchema>;

export const ALERTMANAGER_ENV: EnvBinding[] = [
  ['ALERTMANAGER_WEBHOOK_TOKEN', ['bearerToken'], 'string'],
  ['ALERTMANAGER_URL', ['url'], 'string'],
];
