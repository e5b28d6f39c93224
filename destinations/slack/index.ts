import type { DestinationRegistration } from '../../src/destinations/destination.js';
import { channelError, SLACK_ENV, SlackConfigSchema, type SlackConfig } from './config.js';
import { createSlackClient } from './slack-client.js';
import { SlackDestination } from './slack-destination.js';

/** Slack through @slack/web-api with a bot token: a parent message per thread, RCAs in the thread. */
export const slack: DestinationRegistration<SlackConfig> = {
  name: 'slack',
  configSchema: SlackConfigSchema,
  env: SLACK_ENV,
  disabledReason: (c) => (c.botToken ? null : 'no bot token (SLACK_BOT_TOKEN or destinations.slack.botToken)'),
  targetError: channelError,
  create: (c, ctx) => new SlackDestination(createSlackClient(c, ctx.log), c),
};
