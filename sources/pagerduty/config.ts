import { z } from 'zod';
import { splitTokens } from '../../src/check-credentials.js';
import type { EnvBinding } from '../../src/registration/source.js';

const secret = z.string().min(1);

/** PagerDuty's service regions: the REST API host of each. */
export const REGION_API_URLS = { us: 'https://api.pagerduty.com', eu: 'https://api.eu.pagerduty.com' } as const;
export type Region = keyof typeof REGION_API_URLS;

/** PagerDuty documents no note size limit; this keeps a note readable and well under any request limit. */
export const DEFAULT_NOTE_LIMIT = 25_000;

export const PagerDutyTriggersSchema = z.strictObject({
  /** Service ids (e.g. PIJ90N7) whose incidents are investigated; empty: every service the subscription sends. */
  services: z.array(z.string().regex(/^[A-Z0-9]+$/, 'must be a PagerDuty service id such as PIJ90N7')).default([]),
  /** Incident urgencies investigated. Default high only: low-urgency incidents do not page anyone. */
  urgencies: z
    .array(z.enum(['high', 'low']))
    .min(1)
    .default(['high']),
  /** Priority names (P1, P2, ... as the account names them); empty: any priority, or none. */
  priorities: z.array(z.string().min(1)).default([]),
});
export type PagerDutyTriggers = z.infer<typeof PagerDutyTriggersSchema>;

export const PagerDutyConfigSchema = z.strictObject({
  /** A REST API key (account or user), sent as `Authorization: Token token=<key>`. */
  apiKey: secret.optional(),
  /** The PagerDuty user notes are written as (the `From` header): a user of the account. */
  fromEmail: z.email().optional(),
  /** Service region; `apiUrl` wins when set. */
  region: z.enum(['us', 'eu']).default('us'),
  /** REST API base URL (a test double, a proxy); default the region's. */
  apiUrl: z.url().optional(),
  /** V3 webhook subscription secret(s), for X-PagerDuty-Signature; comma-separate several to rotate. */
  webhookSecret: secret.optional(),
  triggers: PagerDutyTriggersSchema.prefault({}),
  /** Add the RCA as a note on the incident. */
  writeBack: z.boolean().default(true),
  /** Longest note written, in characters. */
  noteLimit: z.int().min(1_000).max(1_000_000).default(DEFAULT_NOTE_LIMIT),
  /** Timeout of one REST request (the webhook's own reads use a shorter one: PagerDuty waits 5 s). */
  requestTimeoutMs: z.int().min(100).max(120_000).default(15_000),
});
export type PagerDutyConfig = z.infer<typeof PagerDutyConfigSchema>;

export const PAGERDUTY_ENV: EnvBinding[] = [
  ['PAGERDUTY_API_KEY', ['apiKey'], 'string'],
  ['PAGERDUTY_FROM_EMAIL', ['fromEmail'], 'string'],
  ['PAGERDUTY_REGION', ['region'], 'string'],
  ['PAGERDUTY_API_URL', ['apiUrl'], 'string'],
  ['PAGERDUTY_WEBHOOK_SECRET', ['webhookSecret'], 'string'],
];

/** The REST API base without a trailing slash. */
export function apiBaseOf(config: Pick<PagerDutyConfig, 'apiUrl' | 'region'>): string {
  return (config.apiUrl ?? REGION_API_URLS[config.region]).replace(/\/+$/, '');
}

export function offReason(config: PagerDutyConfig): string | null {
  return config.apiKey ? null : 'no PAGERDUTY_API_KEY';
}

/** Said only by a process serving webhooks (not by `lestrade worker`). */
export function webhookWarnings(config: PagerDutyConfig): string[] {
  if (splitTokens(config.webhookSecret).length > 0) return [];
  return [
    'no PAGERDUTY_WEBHOOK_SECRET set: /webhooks/pagerduty refuses every delivery (401); set the secret of the V3 webhook subscription',
  ];
}

export function warnings(config: PagerDutyConfig): string[] {
  const out: string[] = [];
  if (config.writeBack && !config.fromEmail) {
    out.push(
      "no PAGERDUTY_FROM_EMAIL set: RCAs are not written back (PagerDuty needs a user's email in the From header to add a note)",
    );
  }
  return out;
}
