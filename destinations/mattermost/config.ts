import { z } from 'zod';
import type { EnvBinding } from '../../src/registration/source.js';

/** A Mattermost id: 26 lower-case letters and digits. */
export const MATTERMOST_ID = /^[a-z0-9]{26}$/;
/** A username as Mattermost allows it (3 to 22 of a-z, 0-9, '.', '-', '_', starting with a letter). */
const USERNAME = /^@?[a-z][a-z0-9._-]{2,21}$/;

/** `destinations.mattermost`: the server, a bot's token, the default route's channel, and the buttons' settings. */
export const MattermostConfigSchema = z
  .strictObject({
    /** The server's base URL (https://chat.example.com); the REST API is under /api/v4. */
    url: z.url().optional(),
    /** A bot account's (or a user's) personal access token. */
    token: z.string().min(1).optional(),
    /** The channel id (26 characters) of routes that name `mattermost` without one. */
    channel: z.string().regex(MATTERMOST_ID, 'a Mattermost channel id (26 lower-case letters and digits)').optional(),
    /**
     * Where Mattermost sends button clicks: Lestrade's own URL as Mattermost reaches it, ending in
     * /webhooks/mattermost/actions. Without it (or without actionSecret) posts carry no buttons.
     */
    actionUrl: z.url().optional(),
    /**
     * The HMAC key each button's context is signed with (Mattermost signs nothing it sends back): at least
     * 32 characters; required when actionUrl is set.
     */
    actionSecret: z.string().min(32, 'at least 32 characters (e.g. `openssl rand -hex 32`)').optional(),
    /** Who may approve, deny and re-run: Mattermost user ids or usernames; nobody when empty. */
    approvers: z
      .array(z.string().refine((s) => MATTERMOST_ID.test(s) || USERNAME.test(s), 'a Mattermost user id or username'))
      .default([]),
    /** One API request's time limit. */
    timeoutMs: z.int().positive().default(15_000),
  })
  .refine((c) => !c.actionUrl || c.actionSecret, {
    path: ['actionSecret'],
    message:
      'buttons (destinations.mattermost.actionUrl) need a secret to sign them: set MATTERMOST_ACTION_SECRET (destinations.mattermost.actionSecret), or unset MATTERMOST_ACTION_URL',
  });
export type MattermostConfig = z.infer<typeof MattermostConfigSchema>;

export const MATTERMOST_ENV: EnvBinding[] = [
  ['MATTERMOST_URL', ['url'], 'string'],
  ['MATTERMOST_TOKEN', ['token'], 'string'],
  ['MATTERMOST_CHANNEL', ['channel'], 'string'],
  ['MATTERMOST_ACTION_URL', ['actionUrl'], 'string'],
  ['MATTERMOST_ACTION_SECRET', ['actionSecret'], 'string'],
];

/** A route's `mattermost:<channel>` suffix: a channel id. */
export function channelError(target: string): string | null {
  return MATTERMOST_ID.test(target) ? null : 'a Mattermost channel is its id: 26 lower-case letters and digits';
}
