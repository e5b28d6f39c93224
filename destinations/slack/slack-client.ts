import { LogLevel, WebClient, type Logger as SlackLogger } from '@slack/web-api';
import type { Logger } from '../../src/log.js';
import type { SlackConfig } from './config.js';
import { slackFailure } from './slack-errors.js';

/** Who the bot is, from auth.test: how our own earlier messages are recognised. */
export interface SlackIdentity {
  userId: string;
  botId: string | null;
  team: string | null;
  /** The workspace's URL (https://acme.slack.com/), for permalinks. */
  url: string | null;
}

/**
 * The Web API client, reusable by whatever else talks to Slack (interactivity answers, approvals).
 * Its own retries are off (retries: 0, rejectRateLimitedCalls): the write-back queue retries
 * instead, durably and without holding a worker for up to half an hour as the SDK's default
 * policy does, and every retry goes through find-before-write, which the SDK's retry of a POST
 * whose answer was lost would skip (posting the message twice).
 */
export function createSlackClient(
  config: Pick<SlackConfig, 'botToken' | 'apiUrl' | 'timeoutMs'>,
  log: Logger,
): WebClient {
  return new WebClient(config.botToken, {
    slackApiUrl: config.apiUrl.endsWith('/') ? config.apiUrl : `${config.apiUrl}/`,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    timeout: config.timeoutMs,
    allowAbsoluteUrls: false,
    logger: slackLogger(log),
    logLevel: LogLevel.WARN,
  });
}

/** Calls one Web API method, turning every failure into the typed error the queue acts on. */
export async function slackCall<T>(call: () => Promise<T>, channel: string | null): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw slackFailure(err, channel);
  }
}

/** auth.test: the bot's user and bot ids (typed errors as slackCall). */
export async function whoAmI(client: WebClient): Promise<SlackIdentity> {
  const r = await slackCall(() => client.auth.test(), null);
  return { userId: r.user_id ?? '', botId: r.bot_id ?? null, team: r.team ?? null, url: r.url ?? null };
}

/** The SDK's logger onto ours; it never logs request bodies at these levels. */
function slackLogger(log: Logger): SlackLogger {
  const child = log.child({ component: 'slack' });
  const text = (msg: unknown[]) => msg.map(String).join(' ');
  let level = LogLevel.WARN;
  return {
    debug: () => undefined,
    info: () => undefined,
    warn: (...msg: unknown[]) => child.warn(text(msg)),
    error: (...msg: unknown[]) => child.error(text(msg)),
    setLevel: (l: LogLevel) => {
      level = l;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
