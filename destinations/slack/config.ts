import { z } from 'zod';
import type { EnvBinding } from '../../src/registration/source.js';

export const DEFAULT_SLACK_API_URL = 'https://slack.com/api/';

/** `destinations.slack`: a bot token and the default route's channel. */
export const SlackConfigSchema = z.strictObject({
  /** A bot token (xoxb-…) of an app with chat:write, channels:history and groups:history. */
  botToken: z.string().min(1).optional(),
  /** The Web API's base URL; tests point it at a double. */
  apiUrl: z.url().default(DEFAULT_SLACK_API_URL),
  /** The channel (id like C0123456, or #name) of routes that name `slack` without one. */
  channel: z.string().min(1).optional(),
  /**
   * Verifies Slack's interactivity requests (the buttons): the app's signing secret; several, comma-separated,
   * while one is rotated. Without it the message carries no buttons and /webhooks/slack/interactivity is off.
   */
  signingSecret: z.string().min(1).optional(),
  /** Who may press the buttons: Slack user ids (U…, W…) and user-group ids (S…); nobody when empty. */
  approvers: z
    .array(z.string().regex(/^[UWS][A-Z0-9]{2,}$/, 'a Slack user id (U…, W…) or user-group id (S…)'))
    .default([]),
  /** One Web API request's time limit. */
  timeoutMs: z.int().positive().default(15_000),
});
export type SlackConfig = z.infer<typeof SlackConfigSchema>;

export const SLACK_ENV: EnvBinding[] = [
  ['SLACK_BOT_TOKEN', ['botToken'], 'string'],
  ['SLACK_API_URL', ['apiUrl'], 'string'],
  ['SLACK_CHANNEL', ['channel'], 'string'],
  ['SLACK_SIGNING_SECRET', ['signingSecret'], 'string'],
];

/** A channel id (C…, G…, D…) or a #name. */
export function channelError(target: string): string | null {
  return /^(?:[CGD][A-Z0-9]{2,}|#[a-z0-9][a-z0-9._-]{0,79})$/.test(target)
    ? null
    : 'a Slack channel is an id like C0123456 or a name like #alerts (lower case)';
}
