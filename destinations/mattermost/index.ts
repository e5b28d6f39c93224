import type { DestinationRegistration } from '../../src/delivery/destination.js';
import { actionsWebhook } from './actions-webhook.js';
import { Approvers } from './approvers.js';
import { channelError, MATTERMOST_ENV, MattermostConfigSchema, type MattermostConfig } from './config.js';
import { MattermostClient } from './mattermost-client.js';
import { MattermostDestination } from './mattermost-destination.js';

/** Mattermost through its REST API v4 with a bot token: a parent post per thread, RCAs in the thread, buttons. */
export const mattermost: DestinationRegistration<MattermostConfig> = {
  name: 'mattermost',
  configSchema: MattermostConfigSchema,
  env: MATTERMOST_ENV,
  disabledReason: (c) => {
    if (!c.url) return 'no server URL (MATTERMOST_URL or destinations.mattermost.url)';
    return c.token ? null : 'no token (MATTERMOST_TOKEN or destinations.mattermost.token)';
  },
  targetError: channelError,
  create: (c) => new MattermostDestination(new MattermostClient(c.url!, c.token!, c.timeoutMs), c),
  webhookPaths: ['actions'],
  webhooksOffReason: (c) =>
    c.actionSecret && c.actionUrl
      ? null
      : 'no action URL and secret (MATTERMOST_ACTION_URL and MATTERMOST_ACTION_SECRET, or destinations.mattermost.actionUrl and .actionSecret)',
  webhooks: (c, destination, actions, ctx) => {
    const client = (destination as MattermostDestination).client;
    const deps = {
      client,
      secret: c.actionSecret!,
      actionUrl: c.actionUrl!,
      ...(ctx.publicUrl ? { publicUrl: ctx.publicUrl } : {}),
      actions,
      approvers: new Approvers(client, c.approvers),
      log: ctx.log.child({ component: 'mattermost-actions' }),
    };
    return [{ path: 'actions', handler: actionsWebhook(deps) }];
  },
};
