import { createHash } from 'node:crypto';
import type { WebClient } from '@slack/web-api';
import type { Delivered, DeliveryContext, Destination, DestinationView } from '../../src/delivery/destination.js';
import { PermanentError } from '../../src/errors.js';
import { renderReply } from './approval-blocks.js';
import { parentStateOf, renderParent, type ParentState, type SlackMessage } from './blocks.js';
import type { SlackConfig } from './config.js';
import { findInHistory, findInThread, RCA_EVENT, THREAD_EVENT } from './find-message.js';
import { fixFor } from './slack-errors.js';
import { postAnswers, type ThreadPost } from './thread-answers.js';
import { slackCall, whoAmI, type SlackIdentity } from './slack-client.js';

/** What we remember of a thread's parent message (in the destination's memo). */
interface ParentRecord {
  ts: string;
  /** The newest investigation the parent shows, and the state it was last rendered from. */
  newest: { id: string; createdAt: string } | null;
  state: ParentState | null;
  /** A digest of the blocks last sent, so an unchanged state costs no chat.update. */
  rendered: string;
}

/**
 * Slack: one parent message per thread (an Alertmanager group, or an issue) in the routed
 * channel, each investigation's RCA as a reply in its thread, the parent edited in place with
 * the thread's state. Every write is found before it is made again: the stored ts, else our
 * metadata on a message by our bot (conversations.history for parents, .replies for replies).
 */
export class SlackDestination implements Destination {
  readonly name = 'slack';
  private identity: Promise<SlackIdentity> | null = null;

  constructor(
    readonly client: WebClient,
    private readonly config: SlackConfig,
  ) {}

  describe(target: string | null): string {
    return `slack:${target ?? this.config.channel ?? '(no channel)'}`;
  }

  /** auth.test, once; a failure is forgotten so the next call tries again. */
  me(): Promise<SlackIdentity> {
    this.identity ??= whoAmI(this.client).catch((err: unknown) => {
      this.identity = null;
      throw err;
    });
    return this.identity;
  }

  async check(): Promise<string | null> {
    try {
      const me = await this.me();
      return me.userId ? null : 'auth.test named no bot user';
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }

  async deliver(view: DestinationView, target: string | null, ctx: DeliveryContext): Promise<Delivered | null> {
    const channel = target ?? this.config.channel;
    if (!channel)
      throw new PermanentError(
        'no Slack channel: set SLACK_CHANNEL (destinations.slack.channel) or route to slack:<channel>',
      );
    const me = await this.me();
    const thread = digest(view.thread.key);
    return ctx.memo.withLock(`thread:${channel}:${thread}`, () =>
      new ThreadWrite(this.client, me, ctx, view, thread, Boolean(this.config.signingSecret)).run(channel),
    );
  }
}

/** One delivery to one thread, under the thread's lock. */
class ThreadWrite {
  constructor(
    private readonly client: WebClient,
    private readonly me: SlackIdentity,
    private readonly ctx: DeliveryContext,
    private readonly view: DestinationView,
    private readonly thread: string,
    /** Buttons are offered only where their clicks are taken (a signing secret is set). */
    private readonly interactive: boolean,
  ) {}

  async run(channelName: string): Promise<Delivered | null> {
    const channel = (await this.ctx.memo.get(`channel:${channelName}`)) ?? channelName;
    let created = false;
    let parent = await this.findParent(channel);
    if (!parent) {
      // An RCA or a pause starts a thread; a resolve or an update has nothing to change without one.
      if (this.view.event !== 'completed' && this.view.event !== 'awaiting_approval') return null;
      parent = await this.postParent(channel);
      created = true;
    }
    const channelId = (await this.ctx.memo.get(`channel:${channelName}`)) ?? channel;
    const reply =
      this.view.event === 'resolved' ? await this.storedReply(channelId) : await this.ensureReply(channelId, parent.ts);
    const answers = this.view.event === 'answered' ? await this.postAnswers(channelId, parent.ts) : 0;
    const updated = await this.refreshParent(channelId, parent);
    const ts = reply?.ts ?? parent.ts;
    const action = deliveryAction(
      created || reply?.created === true || answers > 0,
      updated || reply?.updated === true,
    );
    return { id: `${channelId}/${ts}`, url: this.permalink(channelId, ts, parent.ts), action };
  }

  private parentKey(channel: string): string {
    return `parent:${channel}:${this.thread}`;
  }

  private replyKey(channel: string): string {
    return `reply:${channel}:${this.view.investigation.id}`;
  }

  private async storedReply(channel: string): Promise<ReplyWrite | null> {
    const ts = await this.ctx.memo.get(this.replyKey(channel));
    return ts ? { ts, created: false, updated: false } : null;
  }

  private async findParent(channel: string): Promise<ParentRecord | null> {
    const stored = parseRecord(await this.ctx.memo.get(this.parentKey(channel)));
    if (stored) return stored;
    // A channel given by #name has no id until our first post answered: Slack's history takes ids only.
    if (channel.startsWith('#')) return null;
    const ts = await findInHistory(this.client, channel, this.me, {
      eventType: THREAD_EVENT,
      payload: { thread: this.thread },
    });
    if (!ts) return null;
    const found: ParentRecord = { ts, newest: null, state: null, rendered: '' };
    await this.ctx.memo.set(this.parentKey(channel), JSON.stringify(found));
    return found;
  }

  private async postParent(channel: string): Promise<ParentRecord> {
    const state = parentStateOf(this.view);
    const msg = renderParent(state);
    const r = await this.post(channel, msg, { event_type: THREAD_EVENT, event_payload: { thread: this.thread } });
    if (r.channel !== channel) await this.ctx.memo.set(`channel:${channel}`, r.channel);
    const record: ParentRecord = { ts: r.ts, newest: this.newest(), state, rendered: digest(JSON.stringify(msg)) };
    await this.ctx.memo.set(this.parentKey(r.channel), JSON.stringify(record));
    return record;
  }

  /** The investigation's reply, found or posted, then edited in place when its state renders differently. */
  private async ensureReply(channel: string, parentTs: string): Promise<ReplyWrite> {
    const marker = {
      eventType: RCA_EVENT,
      payload: { investigation_id: this.view.investigation.id, thread: this.thread },
    };
    const msg = renderReply(this.view, this.interactive);
    const rendered = digest(JSON.stringify(msg));
    const digestKey = `replyDigest:${channel}:${this.view.investigation.id}`;
    const known =
      (await this.ctx.memo.get(this.replyKey(channel))) ??
      (await findInThread(this.client, channel, parentTs, this.me, marker));
    const stageKey = `replyStage:${channel}:${this.view.investigation.id}`;
    if (known) {
      await this.ctx.memo.set(this.replyKey(channel), known);
      if ((await this.ctx.memo.get(digestKey)) === rendered) return { ts: known, created: false, updated: false };
      // A view read before a later one was written (jobs run side by side) must not bring back an older state.
      if (stageOf(this.view) < Number((await this.ctx.memo.get(stageKey)) ?? '0'))
        return { ts: known, created: false, updated: false };
      await slackCall(
        () => this.client.chat.update({ channel, ts: known, text: msg.text, blocks: msg.blocks as never }),
        channel,
      );
      await this.ctx.memo.set(digestKey, rendered);
      await this.ctx.memo.set(stageKey, String(stageOf(this.view)));
      return { ts: known, created: false, updated: true };
    }
    const r = await this.post(channel, msg, { event_type: marker.eventType, event_payload: marker.payload }, parentTs);
    await this.ctx.memo.set(this.replyKey(channel), r.ts);
    await this.ctx.memo.set(digestKey, rendered);
    await this.ctx.memo.set(stageKey, String(stageOf(this.view)));
    return { ts: r.ts, created: true, updated: false };
  }

  /** The follow-up answers not yet in the thread, each posted once (thread-answers.ts). */
  private postAnswers(channel: string, parentTs: string): Promise<number> {
    const post: ThreadPost = (msg, metadata) => this.post(channel, msg, metadata, parentTs);
    return postAnswers(this.view, {
      client: this.client,
      me: this.me,
      ctx: this.ctx,
      channel,
      parentTs,
      thread: this.thread,
      post,
    });
  }

  /** Re-renders the parent from the thread's latest state; chat.update only when it changed. */
  private async refreshParent(channel: string, parent: ParentRecord): Promise<boolean> {
    const mine = parentStateOf(this.view);
    const newer = !parent.newest || this.view.investigation.createdAt >= parent.newest.createdAt;
    // The counts are the latest news of the thread; the headline is the newest investigation's.
    // A run without an RCA yet (paused, re-running) leaves the latest headline shown.
    const headline = mine.headline || parent.state?.headline || '';
    const state: ParentState =
      newer || !parent.state
        ? { ...mine, headline }
        : { ...parent.state, firing: mine.firing, resolved: mine.resolved, status: mine.status };
    const msg = renderParent(state);
    const rendered = digest(JSON.stringify(msg));
    if (rendered === parent.rendered) return false;
    await slackCall(
      () => this.client.chat.update({ channel, ts: parent.ts, text: msg.text, blocks: msg.blocks as never }),
      channel,
    );
    const record: ParentRecord = { ts: parent.ts, newest: newer ? this.newest() : parent.newest, state, rendered };
    await this.ctx.memo.set(this.parentKey(channel), JSON.stringify(record));
    return true;
  }

  private async post(
    channel: string,
    msg: SlackMessage,
    metadata: { event_type: string; event_payload: Record<string, string> },
    threadTs?: string,
  ) {
    const r = await slackCall(
      () =>
        this.client.chat.postMessage({
          channel,
          text: msg.text,
          blocks: msg.blocks as never,
          metadata,
          unfurl_links: false,
          unfurl_media: false,
          ...(threadTs ? { thread_ts: threadTs } : {}),
        }),
      channel,
    );
    if (!r.ts || !r.channel)
      throw new PermanentError(`Slack accepted the message but named no ts: ${fixFor('', {}, channel)}`);
    return { ts: r.ts, channel: r.channel };
  }

  private newest(): ParentRecord['newest'] {
    return { id: this.view.investigation.id, createdAt: this.view.investigation.createdAt };
  }

  private permalink(channel: string, ts: string, parentTs: string): string | null {
    const base = this.me.url;
    if (!base) return null;
    const link = `${base.replace(/\/?$/, '/')}archives/${channel}/p${ts.replace('.', '')}`;
    return ts === parentTs ? link : `${link}?thread_ts=${parentTs}&cid=${channel}`;
  }
}

interface ReplyWrite {
  ts: string;
  created: boolean;
  updated: boolean;
}

/**
 * How far an investigation's reply has come: its run, and whether that run completed. A reply never goes back
 * (a completed run's RCA is replaced only by a later run's state), which is what chat.update of a stale view
 * would otherwise do.
 */
function stageOf(view: DestinationView): number {
  return view.investigation.run * 2 + (view.investigation.status === 'completed' ? 1 : 0);
}

function deliveryAction(created: boolean, updated: boolean): Delivered['action'] {
  if (created) return 'created';
  return updated ? 'updated' : 'unchanged';
}

function parseRecord(text: string | null): ParentRecord | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as ParentRecord;
  } catch {
    return null;
  }
}

/** 32 hex characters of SHA-256: what metadata and memo keys carry instead of a group's labels. */
export function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}
