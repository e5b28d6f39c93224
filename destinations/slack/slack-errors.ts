import { WebAPIHTTPError, WebAPIPlatformError, WebAPIRateLimitedError, WebAPIRequestError } from '@slack/web-api';
import { PermanentError, RetryableError } from '../../src/errors.js';

/** Codes Slack answers (HTTP 200, ok:false) that a later try may not meet again. */
const TRANSIENT = new Set([
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
  'team_added_to_org',
]);
const BAD_TOKEN = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'no_permission',
  'ekm_access_denied',
]);

/**
 * A Slack failure as the queue needs it: rate limits, 5xx and network errors are retried later
 * (after Retry-After); every other `ok:false` ends the write-back, naming Slack's error and the fix.
 */
export function slackFailure(err: unknown, channel: string | null): RetryableError | PermanentError {
  if (err instanceof WebAPIRateLimitedError) {
    return new RetryableError(`Slack rate-limited the request (429, Retry-After ${err.retryAfter} s)`, {
      retryAfterMs: err.retryAfter * 1000,
    });
  }
  if (err instanceof WebAPIPlatformError)
    return platformFailure(err.data.error, err.data as { needed?: string }, channel);
  if (err instanceof WebAPIHTTPError) {
    const retryAfter = Number(err.headers['retry-after']);
    const message = `Slack answered HTTP ${err.statusCode} ${err.statusMessage}`;
    if (err.statusCode >= 500 || err.statusCode === 408) {
      return new RetryableError(message, Number.isFinite(retryAfter) ? { retryAfterMs: retryAfter * 1000 } : {});
    }
    return new PermanentError(`${message}: check SLACK_API_URL (destinations.slack.apiUrl)`);
  }
  if (err instanceof WebAPIRequestError)
    return new RetryableError(`Slack unreachable: ${err.original.message}`, { cause: err });
  return new RetryableError(`Slack request failed: ${err instanceof Error ? err.message : String(err)}`, {
    cause: err,
  });
}

function platformFailure(
  code: string,
  data: { needed?: string },
  channel: string | null,
): RetryableError | PermanentError {
  if (TRANSIENT.has(code)) {
    // Slack's HTTP 200 `ratelimited` carries no Retry-After the SDK passes on: the queue's backoff decides.
    return new RetryableError(`Slack answered ok:false ${code}`);
  }
  return new PermanentError(`Slack answered ok:false ${code}: ${fixFor(code, data, channel)}`);
}

/** What the operator should do about a permanent Slack error. */
export function fixFor(code: string, data: { needed?: string }, channel: string | null): string {
  const where = channel ?? 'the channel';
  if (BAD_TOKEN.has(code))
    return "Slack refused the bot token; set SLACK_BOT_TOKEN (destinations.slack.botToken) to the app's current bot token (xoxb-…)";
  switch (code) {
    case 'channel_not_found':
      return `no channel ${where} visible to the bot; check SLACK_CHANNEL or the route's slack:<channel>, and invite the bot to a private channel`;
    case 'not_in_channel':
      return `the bot is not a member of ${where}; invite it there (/invite @<your app>)`;
    case 'is_archived':
      return `${where} is archived; route to another channel`;
    case 'missing_scope':
      return `the bot token lacks the scope ${data.needed ?? "(see the app's OAuth page)"}; add chat:write, channels:history, groups:history and reinstall the app`;
    case 'msg_too_long':
    case 'invalid_blocks':
    case 'invalid_metadata_format':
      return 'Slack refused the message Lestrade built; please report it as a bug';
    default:
      return 'see https://api.slack.com/methods for the error';
  }
}
