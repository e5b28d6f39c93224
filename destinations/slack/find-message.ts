import type { WebClient } from '@slack/web-api';
import { slackCall, type SlackIdentity } from './slack-client.js';

/** Our messages carry Slack message metadata: this event type and a payload naming the thread or investigation. */
export const THREAD_EVENT = 'lestrade_thread';
export const RCA_EVENT = 'lestrade_rca';
/** A follow-up's answer in the thread: the payload names the investigation and the question's entry. */
export const ANSWER_EVENT = 'lestrade_answer';

export interface Marker {
  eventType: string;
  payload: Record<string, string>;
}

interface SlackMessageSeen {
  ts?: string;
  user?: string;
  bot_id?: string;
  metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
}

/** Pages of 200 messages looked through at most: a thread's parent is recent, history is not searched forever. */
const MAX_PAGES = 5;
const PAGE = 200;

interface SeenPage {
  messages?: SlackMessageSeen[];
  response_metadata?: { next_cursor?: string };
}

/** The first message a page of `list` holds that `wanted` accepts, following the cursor up to MAX_PAGES pages. */
async function findInPages(
  list: (page: { limit: number; include_all_metadata: true; cursor?: string }) => Promise<SeenPage>,
  channel: string,
  wanted: (m: SlackMessageSeen) => boolean,
): Promise<string | null> {
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await slackCall(
      () => list({ limit: PAGE, include_all_metadata: true, ...(cursor ? { cursor } : {}) }),
      channel,
    );
    const found = r.messages?.find(wanted);
    if (found?.ts) return found.ts;
    cursor = r.response_metadata?.next_cursor || undefined;
    if (!cursor) return null;
  }
  return null;
}

/**
 * Our earlier top-level message with this marker in the channel (posted by our bot, carrying our
 * metadata), or null: how a write whose answer was lost is found before posting again.
 */
export function findInHistory(
  client: WebClient,
  channel: string,
  me: SlackIdentity,
  marker: Marker,
): Promise<string | null> {
  return findInPages(
    (page) => client.conversations.history({ channel, ...page }),
    channel,
    (m) => isOurs(m, me, marker),
  );
}

/** Our earlier reply with this marker in the thread of parentTs, or null. */
export function findInThread(
  client: WebClient,
  channel: string,
  parentTs: string,
  me: SlackIdentity,
  marker: Marker,
): Promise<string | null> {
  return findInPages(
    (page) => client.conversations.replies({ channel, ts: parentTs, ...page }),
    channel,
    (m) => m.ts !== parentTs && isOurs(m, me, marker),
  );
}

/** Written by our bot (its bot id, or its user) and carrying exactly our marker. */
export function isOurs(m: SlackMessageSeen, me: SlackIdentity, marker: Marker): boolean {
  const byUs = (me.botId !== null && m.bot_id === me.botId) || (me.userId !== '' && m.user === me.userId);
  if (!byUs || m.metadata?.event_type !== marker.eventType) return false;
  const payload = m.metadata.event_payload ?? {};
  return Object.entries(marker.payload).every(([k, v]) => payload[k] === v);
}
