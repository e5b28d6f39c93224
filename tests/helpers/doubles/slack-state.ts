/** What the Slack double keeps: channels, their messages and threads, each message's metadata. */
export interface SlackMessageRecord {
  type: 'message';
  ts: string;
  channel: string;
  text: string;
  blocks: unknown[];
  user: string;
  bot_id: string;
  thread_ts?: string;
  metadata?: { event_type: string; event_payload?: Record<string, unknown> };
  /** How many times chat.update changed it. */
  edits: number;
}

export interface SlackChannel {
  id: string;
  name: string;
  /** Whether the bot was invited (not_in_channel otherwise). */
  member: boolean;
  messages: SlackMessageRecord[];
}

export const BOT = {
  userId: 'U0LESTRADE',
  botId: 'B0LESTRADE1',
  team: 'Lestrade Test',
  teamId: 'T0TEST0001',
  url: 'https://lestrade-test.slack.com/',
};

export class SlackState {
  readonly channels = new Map<string, SlackChannel>();
  /** User groups (S…) and their members, as usergroups.users.list answers. */
  readonly userGroups = new Map<string, string[]>();
  /** Ephemeral messages: only their recipient sees them (chat.postEphemeral). */
  readonly ephemerals: Array<{ channel: string; user: string; text: string; thread_ts?: string; ts: string }> = [];
  /** Modals opened (views.open), with the trigger each exchanged. */
  readonly views: Array<{ id: string; trigger_id: string; view: Record<string, unknown> }> = [];
  private clock = 1_700_000_000_000_000;

  addChannel(id: string, name: string, opts: { member?: boolean } = {}): SlackChannel {
    const ch: SlackChannel = { id, name, member: opts.member ?? true, messages: [] };
    this.channels.set(id, ch);
    return ch;
  }

  /** By id, or by #name as chat.postMessage accepts it. */
  channel(ref: string): SlackChannel | undefined {
    if (ref.startsWith('#')) return [...this.channels.values()].find((c) => `#${c.name}` === ref);
    return this.channels.get(ref);
  }

  /** A new unique ts, "0123456789.012345". */
  nextTs(): string {
    this.clock += 1;
    const s = String(this.clock);
    return `${s.slice(0, 10)}.${s.slice(10)}`;
  }

  /** Top-level messages of a channel (parents), oldest first. */
  parents(channelId: string): SlackMessageRecord[] {
    return (this.channels.get(channelId)?.messages ?? []).filter((m) => !m.thread_ts || m.thread_ts === m.ts);
  }

  /** The replies in a thread, oldest first (not the parent). */
  replies(channelId: string, parentTs: string): SlackMessageRecord[] {
    return (this.channels.get(channelId)?.messages ?? []).filter((m) => m.thread_ts === parentTs && m.ts !== parentTs);
  }

  all(): SlackMessageRecord[] {
    return [...this.channels.values()].flatMap((c) => c.messages);
  }
}

/** The message as Slack returns it: metadata only when asked for. */
export function messageView(m: SlackMessageRecord, withMetadata: boolean): Record<string, unknown> {
  const { edits: _e, channel: _c, metadata, ...rest } = m;
  return { ...rest, ...(withMetadata && metadata ? { metadata } : {}) };
}
