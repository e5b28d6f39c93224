import { z } from 'zod';
import { InputError } from '../../src/errors.js';
import { readJson } from '../../src/read-json.js';
import type { Delivery } from '../../src/registration/source.js';
import { parseLosslessJson } from './lossless-json.js';

/** Epoch milliseconds, as OpsGenie-style payloads send `createdAt`. */
const EpochMs = z.union([z.int(), z.string().regex(/^\d+$/).transform(Number)]);

/**
 * Epoch NANOseconds (`updatedAt`), kept as its exact decimal string: parseLosslessJson hands
 * integers past 2^53 over as strings, smaller ones stay numbers and print exactly.
 */
export const EpochNanos = z.union([z.string().regex(/^\d+$/), z.int().nonnegative().transform(String)]);

const Responder = z.object({
  id: z.string().nullish(),
  type: z.string().nullish(),
  name: z.string().nullish(),
});

/**
 * The alert inside an outgoing-webhook action payload (OpsGenie's Webhook integration, and the
 * JSM Operations webhook integration that copies it). `description` and `details` are present
 * only when the integration has "Add Alert Description" / "Add Alert Details" ticked.
 */
export const WebhookAlertSchema = z.object({
  alertId: z.string().min(1),
  message: z.string().nullish(),
  tinyId: z.union([z.string(), z.int()]).transform(String).nullish(),
  alias: z.string().nullish(),
  entity: z.string().nullish(),
  source: z.string().nullish(),
  description: z.string().nullish(),
  /**
   * Checked to be an object and passed through as parsed (z.record would drop a "__proto__" key);
   * detailsOf turns it into strings.
   */
  details: z
    .custom<Record<string, unknown>>(
      (v) => v === null || v === undefined || (typeof v === 'object' && !Array.isArray(v)),
      'expected an object of strings',
    )
    .optional(),
  tags: z.array(z.string()).nullish(),
  priority: z.string().nullish(),
  /** Team ids. */
  teams: z.array(z.string()).nullish(),
  responders: z.array(Responder).nullish(),
  createdAt: EpochMs.nullish(),
  updatedAt: EpochNanos.nullish(),
  username: z.string().nullish(),
  userId: z.string().nullish(),
  /** The note of an AddNote action. */
  note: z.string().nullish(),
});
export type WebhookAlert = z.infer<typeof WebhookAlertSchema>;

export const ActionPayloadSchema = z.object({
  action: z.string().min(1),
  alert: WebhookAlertSchema,
  source: z.object({ name: z.string().nullish(), type: z.string().nullish() }).nullish(),
  integrationId: z.string().nullish(),
  integrationName: z.string().nullish(),
  integrationType: z.string().nullish(),
});
export type ActionPayload = z.infer<typeof ActionPayloadSchema>;

/**
 * The delivery's payload, read again from the raw body with parseLosslessJson: the engine's
 * JSON.parse (the `body` handed to handle) has already rounded `alert.updatedAt`.
 */
export function readActionPayload(delivery: Delivery): ActionPayload {
  let doc: unknown;
  try {
    doc = parseLosslessJson(delivery.rawBody.toString('utf8'));
  } catch (err) {
    throw new InputError('', `request body is not valid JSON: ${(err as Error).message}`);
  }
  return readJson(doc, ActionPayloadSchema);
}

/**
 * A details map as strings, from the vendor's object (read straight from the parsed JSON, so a key
 * such as "__proto__" stays an own property and reaches nothing's prototype).
 */
export function detailsOf(raw: unknown): Record<string, string> {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return {};
  const entries = Object.entries(raw as Record<string, unknown>).map(([k, v]): [string, string] => [k, asText(v)]);
  return Object.fromEntries(entries);
}

function asText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects took the branch before; a primitive is left
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}
