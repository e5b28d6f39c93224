import type { WebClient } from '@slack/web-api';
import type { DeliveryContext, DestinationView } from '../../src/delivery/destination.js';
import { renderAnswer } from './answer-blocks.js';
import type { SlackMessage } from './blocks.js';
import { ANSWER_EVENT, findInThread } from './find-message.js';
import type { SlackIdentity } from './slack-client.js';

/** Posts one message in a thread with our metadata; answers its ts (typed errors as slackCall). */
export type ThreadPost = (
  msg: SlackMessage,
  metadata: { event_type: string; event_payload: Record<string, string> },
) => Promise<{ ts: string }>;

export interface AnswerThread {
  client: WebClient;
  me: SlackIdentity;
  ctx: DeliveryContext;
  channel: string;
  parentTs: string;
  /** The digest of the thread's key, as the RCA's metadata carries it. */
  thread: string;
  post: ThreadPost;
}

/**
 * Every answered follow-up not yet in the thread, posted once each, oldest first: the stored ts, then our
 * metadata (`lestrade_answer` with the investigation id and the question's entry) on a reply by our bot, else
 * a new reply. Runs under the thread's lock. Answers how many it posted.
 */
export async function postAnswers(view: DestinationView, t: AnswerThread): Promise<number> {
  let posted = 0;
  for (const a of view.answers) {
    const key = `answer:${t.channel}:${view.investigation.id}:${a.entry}`;
    if (await t.ctx.memo.get(key)) continue;
    const payload = { investigation_id: view.investigation.id, entry: String(a.entry), thread: t.thread };
    const marker = { eventType: ANSWER_EVENT, payload };
    const found = await findInThread(t.client, t.channel, t.parentTs, t.me, marker);
    if (found) {
      await t.ctx.memo.set(key, found);
      continue;
    }
    const r = await t.post(renderAnswer(view, a), { event_type: ANSWER_EVENT, event_payload: payload });
    await t.ctx.memo.set(key, r.ts);
    posted++;
  }
  return posted;
}
