import { createHash } from 'node:crypto';
import type { Delivered, DeliveryContext, Destination, DestinationView } from '../../src/delivery/destination.js';
import { PermanentError } from '../../src/errors.js';
import type { MattermostConfig } from './config.js';
import { findInChannel, findInThread } from './find-post.js';
import type { MattermostClient } from './mattermost-client.js';
import { parentStateOf, renderAnswer, renderParent, renderReply, type MmMessage, type ParentState } from './render.js';

/** What we remember of a thread's parent post (in the destination's memo). */
interface ParentRecord {
  id: string;
  newest: { id: string; createdAt: string } | null;
  state: ParentState | null;
  /** A digest of the message last sent, so an unchanged state costs no patch. */
  rendered: string;
}

/**
 * Mattermost: one parent post per thread (an Alertmanager group, or an issue) in the routed channel, each
 * investigation's RCA as a reply under it (`root_id`), the parent patched in place with the thread's state. Every
 * post is found before it is made again: the stored id, else our `props.lestrade_key` on a post by our account
 * (the channel's recent posts for parents, the thread for replies).
 */
export class MattermostDestination implements Destination {
  readonly name = 'mattermost';
  private identity: Promise<string> | null = null;

  constructor(
    readonly client: MattermostClient,
    private readonly config: MattermostConfig,
  ) {}

  describe(target: string | null): string {
    return `mattermost:${target ?? this.config.channel ?? '(no channel)'}`;
  }

  /** Our account's user id (GET /users/me), once; a failure is forgotten so the next call tries again. */
  me(): Promise<string> {
    this.identity ??= this.client.me().then(
      (u) => u.id,
      (err: unknown) => {
        this.identity = null;
        throw err;
      },
    );
    return this.identity;
  }

  async check(): Promise<string | null> {
    try {
      await this.me();
      return null;
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
  }

  async deliver(view: DestinationView, target: string | null, ctx: DeliveryContext): Promise<Delivered | null> {
    const channel = target ?? this.config.channel;
    if (!channel)
      throw new PermanentError(
        'no Mattermost channel: set MATTERMOST_CHANNEL (destinations.mattermost.channel) or route to mattermost:<channel id>',
      );
    const me = await this.me();
    const thread = digest(view.thread.key);
    const buttons =
      this.config.actionUrl && this.config.actionSecret
        ? { url: this.config.actionUrl, secret: this.config.actionSecret }
        : null;
    return ctx.memo.withLock(`thread:${channel}:${thread}`, () =>
      new ThreadWrite(this.client, me, ctx, view, thread, buttons).run(channel),
    );
  }
}

/** One delivery to one thread, under the thread's lock. */
class ThreadWrite {
  constructor(
    private readonly client: MattermostClient,
    private readonly me: string,
    private readonly ctx: DeliveryContext,
    private readonly view: DestinationView,
    private readonly thread: string,
    private readonly buttons: { url: string; secret: string } | null,
  ) {}

  async run(channel: string): Promise<Delivered | null> {
    let created = false;
    let parent = await this.findParent(channel);
    if (!parent) {
      // An RCA or a pause starts a thread; a resolve or an update has nothing to change without one.
      if (this.view.event !== 'completed' && this.view.event !== 'awaiting_approval') return null;
      parent = await this.postParent(channel);
      created = true;
    }
    const reply =
      this.view.event === 'resolved' ? await this.storedReply(channel) : await this.ensureReply(channel, parent.id);
    const answers = this.view.event === 'answered' ? await this.postAnswers(channel, parent.id) : 0;
    const updated = await this.refreshParent(channel, parent);
    const action = deliveryAction(
      created || reply?.created === true || answers > 0,
      updated || reply?.updated === true,
    );
    return { id: reply?.id ?? parent.id, url: null, action };
  }

  private parentKey(channel: string): string {
    return `parent:${channel}:${this.thread}`;
  }

  private replyKey(channel: string): string {
    return `reply:${channel}:${this.view.investigation.id}`;
  }

  private async storedReply(channel: string): Promise<ReplyWrite | null> {
    const id = await this.ctx.memo.get(this.replyKey(channel));
    return id ? { id, created: false, updated: false } : null;
  }

  private async findParent(channel: string): Promise<ParentRecord | null> {
    const stored = parseRecord(await this.ctx.memo.get(this.parentKey(channel)));
    if (stored) return stored;
    const id = await findInChannel(this.client, channel, this.me, `thread:${this.thread}`);
    if (!id) return null;
    const found: ParentRecord = { id, newest: null, state: null, rendered: '' };
    await this.ctx.memo.set(this.parentKey(channel), JSON.stringify(found));
    return found;
  }

  private async postParent(channel: string): Promise<ParentRecord> {
    const state = parentStateOf(this.view);
    const msg = renderParent(state, `thread:${this.thread}`);
    const p = await this.client.createPost({ channel_id: channel, ...msg });
    const record: ParentRecord = { id: p.id, newest: this.newest(), state, rendered: digest(JSON.stringify(msg)) };
    await this.ctx.memo.set(this.parentKey(channel), JSON.stringify(record));
    return record;
  }

  /**
   * The investigation's reply: found (stored id, else our key in the thread) or posted, then patched whenever its
   * state renders differently. A new reply is posted bare and patched at once: its buttons are signed with its id.
   */
  private async ensureReply(channel: string, rootId: string): Promise<ReplyWrite> {
    const key = `rca:${this.view.investigation.id}`;
    const known =
      (await this.ctx.memo.get(this.replyKey(channel))) ?? (await findInThread(this.client, rootId, this.me, key));
    let id = known;
    if (!id) {
      const bare = renderReply(this.view, key, null);
      id = (await this.client.createPost({ channel_id: channel, root_id: rootId, ...bare })).id;
      await this.ctx.memo.set(this.replyKey(channel), id);
      if (!this.buttons) {
        await this.remember(channel, digest(JSON.stringify(bare)));
        return { id, created: true, updated: false };
      }
    }
    await this.ctx.memo.set(this.replyKey(channel), id);
    const updated = await this.patchReply(channel, id, key);
    return { id, created: !known, updated: Boolean(known) && updated };
  }

  private async patchReply(channel: string, id: string, key: string): Promise<boolean> {
    const msg = renderReply(this.view, key, this.buttons ? { ...this.buttons, postId: id } : null);
    const rendered = digest(JSON.stringify(msg));
    if ((await this.ctx.memo.get(this.digestKey(channel))) === rendered) return false;
    // A view read before a later one was written (jobs run side by side) must not bring back an older state.
    if (stageOf(this.view) < Number((await this.ctx.memo.get(this.stageKey(channel))) ?? '0')) return false;
    await this.client.patchPost(id, msg);
    await this.remember(channel, rendered);
    return true;
  }

  private digestKey(channel: string): string {
    return `replyDigest:${channel}:${this.view.investigation.id}`;
  }

  private stageKey(channel: string): string {
    return `replyStage:${channel}:${this.view.investigation.id}`;
  }

  private async remember(channel: string, rendered: string): Promise<void> {
    await this.ctx.memo.set(this.digestKey(channel), rendered);
    await this.ctx.memo.set(this.stageKey(channel), String(stageOf(this.view)));
  }

  /** Every answered follow-up not yet in the thread, each posted once (stored id, else found by its key). */
  private async postAnswers(channel: string, rootId: string): Promise<number> {
    let posted = 0;
    for (const a of this.view.answers) {
      const memoKey = `answer:${channel}:${this.view.investigation.id}:${a.entry}`;
      if (await this.ctx.memo.get(memoKey)) continue;
      const key = `answer:${this.view.investigation.id}:${a.entry}`;
      const found = await findInThread(this.client, rootId, this.me, key);
      const id =
        found ??
        (await this.client.createPost({ channel_id: channel, root_id: rootId, ...renderAnswer(this.view, a, key) })).id;
      await this.ctx.memo.set(memoKey, id);
      if (!found) posted++;
    }
    return posted;
  }

  /** Re-renders the parent from the thread's latest state; a patch only when it changed. */
  private async refreshParent(channel: string, parent: ParentRecord): Promise<boolean> {
    const mine = parentStateOf(this.view);
    const newer = !parent.newest || this.view.investigation.createdAt >= parent.newest.createdAt;
    const headline = mine.headline || parent.state?.headline || '';
    const state: ParentState =
      newer || !parent.state
        ? { ...mine, headline }
        : { ...parent.state, firing: mine.firing, resolved: mine.resolved, status: mine.status };
    const msg: MmMessage = renderParent(state, `thread:${this.thread}`);
    const rendered = digest(JSON.stringify(msg));
    if (rendered === parent.rendered) return false;
    await this.client.patchPost(parent.id, msg);
    const record: ParentRecord = { id: parent.id, newest: newer ? this.newest() : parent.newest, state, rendered };
    await this.ctx.memo.set(this.parentKey(channel), JSON.stringify(record));
    return true;
  }

  private newest(): ParentRecord['newest'] {
    return { id: this.view.investigation.id, createdAt: this.view.investigation.createdAt };
  }
}

interface ReplyWrite {
  id: string;
  created: boolean;
  updated: boolean;
}

/** How far an investigation's reply has come (its run, and whether that run completed): a reply never goes back. */
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

/** 32 hex characters of SHA-256: what props and memo keys carry instead of a group's labels. */
export function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}
