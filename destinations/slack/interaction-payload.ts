import { z } from 'zod';
import { describeZodIssues, InputError } from '../../src/errors.js';

/**
 * What Slack POSTs to the interactivity request URL: `application/x-www-form-urlencoded` with one field,
 * `payload`, a JSON document (docs.slack.dev/reference/interaction-payloads). Only the fields we use are
 * read; Slack adds fields freely, so objects are loose.
 */
const User = z.looseObject({
  id: z.string().min(1).max(64),
  username: z.string().optional(),
  name: z.string().optional(),
});

const BlockActions = z.looseObject({
  type: z.literal('block_actions'),
  user: User,
  trigger_id: z.string().optional(),
  channel: z.looseObject({ id: z.string() }).optional(),
  container: z.looseObject({ channel_id: z.string().optional(), thread_ts: z.string().optional() }).optional(),
  message: z.looseObject({ ts: z.string().optional(), thread_ts: z.string().optional() }).optional(),
  actions: z
    .array(z.looseObject({ action_id: z.string(), value: z.string().max(2000).optional() }))
    .min(1)
    .max(10),
});

const ViewSubmission = z.looseObject({
  type: z.literal('view_submission'),
  user: User,
  view: z.looseObject({
    callback_id: z.string(),
    private_metadata: z.string().max(3000).default(''),
    state: z.looseObject({
      values: z.record(z.string(), z.record(z.string(), z.looseObject({ value: z.string().nullish() }))),
    }),
  }),
});

export type BlockActionsPayload = z.infer<typeof BlockActions>;
export type ViewSubmissionPayload = z.infer<typeof ViewSubmission>;
export type InteractionPayload = BlockActionsPayload | ViewSubmissionPayload | { type: 'other'; what: string };

/** The verified form body's `payload`, validated (InputError naming the field when it is not what Slack sends). */
export function parseInteraction(raw: Buffer): InteractionPayload {
  const text = new URLSearchParams(raw.toString('utf8')).get('payload');
  if (!text) throw new InputError('payload', 'expected a form body with a payload field (Slack interactivity)');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new InputError('payload', `not JSON: ${(err as Error).message}`);
  }
  const type = (doc as { type?: unknown } | null)?.type;
  if (type === 'block_actions') return validated(doc, BlockActions);
  if (type === 'view_submission') return validated(doc, ViewSubmission);
  return { type: 'other', what: typeof type === 'string' ? type.slice(0, 64) : 'unknown' };
}

function validated<T extends z.ZodType>(doc: unknown, schema: T): z.infer<T> {
  const parsed = schema.safeParse(doc);
  if (parsed.success) return parsed.data;
  const field = parsed.error.issues[0]?.path.map(String).join('.') ?? '';
  throw new InputError(`payload.${field}`, describeZodIssues(parsed.error.issues));
}
