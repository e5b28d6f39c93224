import type { SlackAnswer, SlackHandler } from './slack-double.js';
import { BOT, messageView, type SlackMessageRecord, type SlackState } from './slack-state.js';

const PAGE_DEFAULT = 100;

/** Slack's answers, method by method (api.slack.com/methods/<method>). */
export function slackHandlers(): Record<string, SlackHandler> {
  return {
    'auth.test': () =>
      ok({
        url: BOT.url,
        team: BOT.team,
        user: 'lestrade',
        team_id: BOT.teamId,
        user_id: BOT.userId,
        bot_id: BOT.botId,
      }),
    'chat.postMessage': postMessage,
    'chat.update': update,
    'conversations.history': history,
    'conversations.replies': replies,
    'chat.postEphemeral': postEphemeral,
    'views.open': viewsOpen,
    'usergroups.users.list': (args, state) => {
      const users = state.userGroups.get(String(args.usergroup));
      return users ? ok({ users }) : fail('no_such_subteam');
    },
  };
}

function postEphemeral(args: Record<string, unknown>, state: SlackState): SlackAnswer {
  const ch = state.channel(String(args.channel));
  if (!ch) return fail('channel_not_found');
  const text = typeof args.text === 'string' ? args.text : '';
  if (!text && args.blocks === undefined) return fail('no_text');
  const ts = state.nextTs();
  state.ephemerals.push({
    channel: ch.id,
    user: String(args.user),
    text,
    ts,
    ...(args.thread_ts ? { thread_ts: argText(args.thread_ts) } : {}),
  });
  return ok({ message_ts: ts });
}

/** A trigger is exchanged once (exchanged_trigger_id), as Slack does; the view must be a modal with a title. */
function viewsOpen(args: Record<string, unknown>, state: SlackState): SlackAnswer {
  const trigger = argText(args.trigger_id ?? '');
  if (!trigger) return fail('invalid_arguments');
  if (state.views.some((v) => v.trigger_id === trigger)) return fail('exchanged_trigger_id');
  const view = parseJson(args.view) as Record<string, unknown> | undefined;
  if (!view || view.type !== 'modal' || typeof view.title !== 'object' || !Array.isArray(view.blocks))
    return fail('invalid_arguments');
  const id = `V${String(state.views.length + 1).padStart(8, '0')}`;
  state.views.push({ id, trigger_id: trigger, view });
  return ok({ view: { ...view, id, team_id: BOT.teamId } });
}

function ok(body: Record<string, unknown>): SlackAnswer {
  return { body: { ok: true, ...body } };
}

function fail(error: string, extra: Record<string, unknown> = {}): SlackAnswer {
  return { body: { ok: false, error, ...extra } };
}

function postMessage(args: Record<string, unknown>, state: SlackState): SlackAnswer {
  const ch = state.channel(String(args.channel));
  if (!ch) return fail('channel_not_found');
  if (!ch.member) return fail('not_in_channel');
  const content = contentOf(args);
  if ('error' in content) return fail(content.error);
  const threadTs = args.thread_ts === undefined ? undefined : argText(args.thread_ts);
  if (threadTs && !ch.messages.some((m) => m.ts === threadTs)) return fail('thread_not_found');
  const m: SlackMessageRecord = {
    type: 'message',
    ts: state.nextTs(),
    channel: ch.id,
    text: content.text,
    blocks: content.blocks,
    user: BOT.userId,
    bot_id: BOT.botId,
    ...(threadTs ? { thread_ts: threadTs } : {}),
    ...(content.metadata ? { metadata: content.metadata } : {}),
    edits: 0,
  };
  ch.messages.push(m);
  return ok({ channel: ch.id, ts: m.ts, message: messageView(m, false) });
}

function update(args: Record<string, unknown>, state: SlackState): SlackAnswer {
  // chat.update takes a channel id only.
  const ch = state.channels.get(String(args.channel));
  if (!ch) return fail('channel_not_found');
  const m = ch.messages.find((x) => x.ts === String(args.ts));
  if (!m) return fail('message_not_found');
  if (m.bot_id !== BOT.botId) return fail('cant_update_message');
  const content = contentOf(args);
  if ('error' in content) return fail(content.error);
  Object.assign(
    m,
    { text: content.text, blocks: content.blocks, edits: m.edits + 1 },
    content.metadata ? { metadata: content.metadata } : {},
  );
  return ok({ channel: ch.id, ts: m.ts, text: m.text, message: { text: m.text } });
}

function history(args: Record<string, unknown>, state: SlackState): SlackAnswer {
  const ch = state.channels.get(argText(args.channel ?? ''));
  if (!ch) return fail('channel_not_found');
  if (!ch.member) return fail('not_in_channel');
  const newestFirst = [...state.parents(ch.id)].reverse();
  return page(
    newestFirst,
    args,
    (m) => messageView(m, truthy(args.include_all_metadata)),
    (body) => ({ ...body, pin_count: 0, channel_actions_ts: null, channel_actions_count: 0 }),
  );
}

function replies(args: Record<string, unknown>, state: SlackState): SlackAnswer {
  const ch = state.channels.get(argText(args.channel ?? ''));
  if (!ch) return fail('channel_not_found');
  const parent = ch.messages.find((m) => m.ts === String(args.ts));
  if (!parent) return fail('thread_not_found');
  const thread = [parent, ...state.replies(ch.id, parent.ts)];
  return page(
    thread,
    args,
    (m) => messageView(m, truthy(args.include_all_metadata)),
    (body) => body,
  );
}

/** Cursor paging as Slack does it: `limit`, `cursor`, `response_metadata.next_cursor`. */
function page(
  all: SlackMessageRecord[],
  args: Record<string, unknown>,
  view: (m: SlackMessageRecord) => unknown,
  finish: (b: Record<string, unknown>) => Record<string, unknown>,
): SlackAnswer {
  const limit = Math.max(1, Math.min(1000, Number(args.limit ?? PAGE_DEFAULT)));
  const from = args.cursor ? Number(Buffer.from(argText(args.cursor), 'base64').toString()) : 0;
  const slice = all.slice(from, from + limit);
  const more = from + limit < all.length;
  const body = finish({ messages: slice.map(view), has_more: more });
  return ok(
    more ? { ...body, response_metadata: { next_cursor: Buffer.from(String(from + limit)).toString('base64') } } : body,
  );
}

/** text, blocks and metadata, checked against Slack's documented limits. */
function contentOf(
  args: Record<string, unknown>,
): { text: string; blocks: unknown[]; metadata?: SlackMessageRecord['metadata'] } | { error: string } {
  const blocks = parseJson(args.blocks ?? '[]');
  if (!Array.isArray(blocks)) return { error: 'invalid_blocks_format' };
  if (blocks.length > 50) return { error: 'invalid_blocks' };
  for (const b of blocks as Array<{ type?: string; text?: { text?: string } }>) {
    if (typeof b?.type !== 'string') return { error: 'invalid_blocks' };
    if (b.type === 'section' && (b.text?.text?.length ?? 0) > 3000) return { error: 'invalid_blocks' };
    if (b.type === 'header' && (b.text?.text?.length ?? 0) > 150) return { error: 'invalid_blocks' };
  }
  const text = typeof args.text === 'string' ? args.text : '';
  if (!text && blocks.length === 0) return { error: 'no_text' };
  if (args.metadata === undefined) return { text, blocks };
  const metadata = parseJson(args.metadata) as SlackMessageRecord['metadata'] | undefined;
  if (!metadata || typeof metadata.event_type !== 'string' || !/^[A-Za-z0-9_]+$/.test(metadata.event_type))
    return { error: 'invalid_metadata_format' };
  return { text, blocks, metadata };
}

function parseJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return undefined;
  }
}

function truthy(v: unknown): boolean {
  return v === true || v === 'true' || v === '1' || v === 1;
}

/** A request argument as text: Slack's form and JSON bodies carry strings and numbers; anything else as its JSON. */
function argText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v === undefined || v === null) return String(v);
  return JSON.stringify(v);
}
