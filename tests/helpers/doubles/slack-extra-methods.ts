/**
 * Web API methods the archived spec subset in tests/fixtures/specs/slack lacks, written here from Slack's
 * method reference (docs.slack.dev/reference/methods/<method>: arguments, their types, which are
 * required, and the fields of a success answer we read). Requests to them are validated against
 * these as the others are against the spec; a change in what Lestrade sends that Slack would refuse
 * (an unknown or missing argument) fails a test here too.
 */
export interface ExtraMethod {
  params: Array<{ name: string; type?: 'string' | 'boolean' | 'integer'; required?: boolean }>;
  /** JSON Schema of a success answer. */
  answer: Record<string, unknown>;
}

export const EXTRA_METHODS: Record<string, ExtraMethod> = {
  // docs.slack.dev/reference/methods/views.open: `view` required (a JSON-encoded view); one of trigger_id or
  // interactivity_pointer. Answers the opened view.
  'views.open': {
    params: [
      { name: 'view', required: true },
      { name: 'trigger_id', type: 'string' },
      { name: 'interactivity_pointer', type: 'string' },
    ],
    answer: {
      type: 'object',
      required: ['ok', 'view'],
      properties: { ok: { const: true }, view: { type: 'object', required: ['id', 'type'] } },
    },
  },
  // docs.slack.dev/reference/methods/chat.postEphemeral: channel and user required; text or blocks.
  'chat.postEphemeral': {
    params: [
      { name: 'channel', type: 'string', required: true },
      { name: 'user', type: 'string', required: true },
      { name: 'text', type: 'string' },
      { name: 'blocks' },
      { name: 'attachments' },
      { name: 'thread_ts', type: 'string' },
      { name: 'as_user', type: 'boolean' },
      { name: 'icon_emoji', type: 'string' },
      { name: 'icon_url', type: 'string' },
      { name: 'link_names', type: 'boolean' },
      { name: 'parse', type: 'string' },
      { name: 'username', type: 'string' },
    ],
    answer: {
      type: 'object',
      required: ['ok', 'message_ts'],
      properties: { ok: { const: true }, message_ts: { type: 'string' } },
    },
  },
  // docs.slack.dev/reference/methods/usergroups.users.list: usergroup required (scope usergroups:read).
  'usergroups.users.list': {
    params: [
      { name: 'usergroup', type: 'string', required: true },
      { name: 'include_disabled', type: 'boolean' },
      { name: 'team_id', type: 'string' },
    ],
    answer: {
      type: 'object',
      required: ['ok', 'users'],
      properties: { ok: { const: true }, users: { type: 'array', items: { type: 'string' } } },
    },
  },
};
