import type { DestinationRegistration } from '../../src/delivery/destination.js';
import { Approvers } from './approvers.js';
import { channelError, SLACK_ENV, SlackConfigSchema, type SlackConfig } from './config.js';
import { interactivityWebhook } from './interactivity.js';
import { createSlackClient } from './slack-client.js';
import { SlackDestination } from './slack-destination.js';

/** Slack through @slack/web-api with a bot token: a parent message per thread, RCAs in the thread, buttons. */
export const slack: DestinationRegistration<SlackConfig> = {
  name: 'slack',
  configSchema: SlackConfigSchema,
  env: SLACK_ENV,
  disabledReason: (c) => (c.botToken ? null : 'no bot token (SLACK_BOT_TOKEN or destinations.slack.botToken)'),
  targetError: channelError,
  create: (c, ctx) => new SlackDestination(createSlackClient(c, ctx.log), c),
  webhookPaths: ['interactivity'],
  webhooksOffReason: (c) =>
    c.signingSecret ? null : 'no signing secret (SLACK_SIGNING_SECRET or destinations.slack.signingSecret)',
  webhooks: (c, destination, actions, ctx) => {
    const client = (destination as SlackDestination).client;
    const log = ctx.log.child({ component: 'slack-interactivity' });
    const approvers = new Approvers(client, c.approvers);
    return [{ path: 'interactivity', handler: interactivityWebhook({ client, config: c, actions, approvers, log }) }];
  },
};
