import { z } from 'zod';
import type { EnvBinding } from '../../src/registration/source.js';
import { NOTE_LIMIT } from '../ops-alerts-common/note-text.js';
import { AlertTriggersSchema, triggerWarnings } from '../ops-alerts-common/triggers.js';

const secret = z.string().min(1);

export const JsmOpsConfigSchema = z.strictObject({
  /** The Jira site, e.g. https://acme.atlassian.net: its cloudId is looked up there, and alert links point to it. */
  siteUrl: z.url().optional(),
  /** The site's cloudId; when set, no lookup is made. */
  cloudId: z
    .string()
    .regex(/^[\w-]+$/, 'must be a cloud id such as 0ab3c2f1-…')
    .optional(),
  /** An Atlassian account's email and API token (basic auth). */
  email: z.string().min(1).optional(),
  apiToken: secret.optional(),
  /** https://api.atlassian.com, or a test double. */
  apiUrl: z.url().default('https://api.atlassian.com'),
  /** Token(s) the webhook integration must send as X-Lestrade-Token; comma-separate several to rotate. */
  webhookToken: secret.optional(),
  triggers: AlertTriggersSchema.prefault({}),
  /** Write the RCA to the alert as a note. */
  writeBack: z.boolean().default(true),
  noteLimit: z.int().min(1_000).max(NOTE_LIMIT).default(NOTE_LIMIT),
  timeoutMs: z.int().positive().default(15_000),
});
export type JsmOpsConfig = z.infer<typeof JsmOpsConfigSchema>;

export const JSM_OPS_ENV: EnvBinding[] = [
  ['JSM_OPS_SITE_URL', ['siteUrl'], 'string'],
  ['JSM_OPS_CLOUD_ID', ['cloudId'], 'string'],
  ['JSM_OPS_EMAIL', ['email'], 'string'],
  ['JSM_OPS_API_TOKEN', ['apiToken'], 'string'],
  ['JSM_OPS_API_URL', ['apiUrl'], 'string'],
  ['JSM_OPS_WEBHOOK_TOKEN', ['webhookToken'], 'string'],
];

export function offReason(c: JsmOpsConfig): string | null {
  if (!c.email || !c.apiToken) return 'no JSM_OPS_EMAIL + JSM_OPS_API_TOKEN';
  if (!c.cloudId && !c.siteUrl) return 'no JSM_OPS_CLOUD_ID or JSM_OPS_SITE_URL (to look the cloudId up)';
  return null;
}

/** Said only by a process serving webhooks (not by `lestrade worker`): the webhook's credential and triggers. */
export function webhookWarnings(c: JsmOpsConfig): string[] {
  const out: string[] = [];
  if (!c.webhookToken)
    out.push(
      'no JSM_OPS_WEBHOOK_TOKEN set: /webhooks/jsm-ops refuses every delivery (401); JSM webhooks are unsigned, so a token header is their only credential',
    );
  out.push(...triggerWarnings(c.triggers, 'sources.jsm-ops'));
  return out;
}

/** The site's base URL without a trailing slash. */
export function siteOf(c: Pick<JsmOpsConfig, 'siteUrl'>): string | null {
  return c.siteUrl ? c.siteUrl.replace(/\/+$/, '') : null;
}
