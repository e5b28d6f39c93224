import { z } from 'zod';
import type { EnvBinding } from '../../src/registration/source.js';
import { NOTE_LIMIT } from '../ops-alerts-common/note-text.js';
import { AlertTriggersSchema, triggerWarnings } from '../ops-alerts-common/triggers.js';

const secret = z.string().min(1);

export const US_API = 'https://api.opsgenie.com';
export const EU_API = 'https://api.eu.opsgenie.com';

export const OpsgenieConfigSchema = z.strictObject({
  /** An API key of an API integration (Settings → Integrations → API), sent as `Authorization: GenieKey <key>`. */
  apiKey: secret.optional(),
  /** US https://api.opsgenie.com, EU https://api.eu.opsgenie.com (or a test double). */
  apiUrl: z.url().default(US_API),
  /** Token(s) the outgoing webhook must send as X-Lestrade-Token; comma-separate several to rotate. */
  webhookToken: secret.optional(),
  triggers: AlertTriggersSchema.prefault({}),
  /** Add the RCA to the alert as a note. */
  writeBack: z.boolean().default(true),
  /** The `user` our notes are added as; an AddNote by it is recognised as our own. */
  noteUser: z.string().min(1).max(100).default('Lestrade'),
  noteLimit: z.int().min(1_000).max(NOTE_LIMIT).default(NOTE_LIMIT),
  timeoutMs: z.int().positive().default(15_000),
});
export type OpsgenieConfig = z.infer<typeof OpsgenieConfigSchema>;

export const OPSGENIE_ENV: EnvBinding[] = [
  ['OPSGENIE_API_KEY', ['apiKey'], 'string'],
  ['OPSGENIE_API_URL', ['apiUrl'], 'string'],
  ['OPSGENIE_WEBHOOK_TOKEN', ['webhookToken'], 'string'],
];

export function offReason(c: OpsgenieConfig): string | null {
  return c.apiKey ? null : 'no OPSGENIE_API_KEY';
}

/** Said only by a process serving webhooks (not by `lestrade worker`): the webhook's credential and triggers. */
export function webhookWarnings(c: OpsgenieConfig): string[] {
  const out: string[] = [];
  if (!c.webhookToken)
    out.push(
      'no OPSGENIE_WEBHOOK_TOKEN set: /webhooks/opsgenie refuses every delivery (401); OpsGenie webhooks are unsigned, so a token header is their only credential',
    );
  out.push(...triggerWarnings(c.triggers, 'sources.opsgenie'));
  return out;
}

/** The web app next to an API host (api.opsgenie.com → app.opsgenie.com, api.eu… → app.eu…), or null for others. */
export function appBaseOf(apiUrl: string): string | null {
  const url = new URL(apiUrl);
  return /^api\.(eu\.)?opsgenie\.com$/i.test(url.hostname)
    ? `https://${url.hostname.replace(/^api\./i, 'app.')}`
    : null;
}
