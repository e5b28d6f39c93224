import { startOpenApiDouble, type HandlerResult, type OpenApiDouble } from './openapi-double.js';
import { forClient, MattermostState, mmId, type MmStoredPost } from './mattermost-state.js';
import { loadSpec } from './specs.js';

export { MattermostState, mmId };
export type { MmStoredPost };

export const MATTERMOST_SPEC = 'mattermost/mattermost-v4-subset.json';

export interface MattermostDouble extends OpenApiDouble {
  state: MattermostState;
  /** The bot's user id (the account the token belongs to). */
  botId: string;
  token: string;
}

const appError = (status: number, id: string, message: string): HandlerResult => ({
  status,
  body: { id, message, status_code: status, request_id: mmId() },
});

function listOf(posts: MmStoredPost[]) {
  const newest = [...posts].reverse();
  return {
    order: newest.map((p) => p.id),
    posts: Object.fromEntries(newest.map((p) => [p.id, forClient(p)])),
    next_post_id: '',
    prev_post_id: '',
    has_next: false,
  };
}

function handlers(state: MattermostState, botId: string) {
  return {
    CreatePost: ({ body }: { body: unknown }): HandlerResult => {
      const b = body as { channel_id: string; message: string; root_id?: string; props?: Record<string, unknown> };
      if (!state.channels.has(b.channel_id)) return appError(403, 'api.context.permissions.app_error', 'no permission');
      const root = b.root_id ? state.get(b.root_id) : undefined;
      if (b.root_id && (!root || root.root_id || root.channel_id !== b.channel_id))
        return appError(400, 'api.post.create_post.root_id.app_error', 'Invalid RootId parameter.');
      const p = state.add({
        channel_id: b.channel_id,
        user_id: botId,
        root_id: b.root_id ?? '',
        message: b.message,
        props: b.props ?? {},
      });
      return { status: 201, body: forClient(p) };
    },
    PatchPost: ({ params, body }: { params: Record<string, string>; body: unknown }): HandlerResult => {
      const p = state.get(params.post_id ?? '');
      if (!p) return appError(404, 'app.post.get.app_error', 'Unable to get the post.');
      if (p.user_id !== botId) return appError(403, 'api.context.permissions.app_error', 'no permission');
      const b = body as { message?: string; props?: Record<string, unknown> };
      if (b.message !== undefined) p.message = b.message;
      if (b.props !== undefined) p.props = b.props;
      state.touch(p);
      return { status: 200, body: forClient(p) };
    },
    GetPost: ({ params }: { params: Record<string, string> }): HandlerResult => {
      const p = state.get(params.post_id ?? '');
      return p
        ? { status: 200, body: forClient(p) }
        : appError(404, 'app.post.get.app_error', 'Unable to get the post.');
    },
    GetPostThread: ({ params }: { params: Record<string, string> }): HandlerResult => {
      const p = state.get(params.post_id ?? '');
      if (!p) return appError(404, 'app.post.get.app_error', 'Unable to get the post.');
      const root = p.root_id ? state.get(p.root_id)! : p;
      return { status: 200, body: listOf([root, ...state.replies(root.id)]) };
    },
    GetPostsForChannel: ({ params, query }: { params: Record<string, string>; query: Record<string, unknown> }) => {
      if (query.since !== undefined && (query.page !== undefined || query.per_page !== undefined))
        return {
          ...appError(400, 'api.context.invalid_param.app_error', 'since with page'),
          violation: '`since` must not be used with `page` or `per_page`',
        };
      const channel = params.channel_id ?? '';
      if (!state.channels.has(channel)) return appError(403, 'api.context.permissions.app_error', 'no permission');
      const perPage = Math.min(Number(query.per_page ?? 60), 200);
      const page = Number(query.page ?? 0);
      const newest = state.posts.filter((p) => p.channel_id === channel).reverse();
      return { status: 200, body: listOf(newest.slice(page * perPage, (page + 1) * perPage).reverse()) };
    },
    OpenInteractiveDialog: ({ body }: { body: unknown }): HandlerResult => {
      state.dialogs.push(body as MattermostState['dialogs'][number]);
      return { status: 200, body: { status: 'OK' } };
    },
    GetUser: ({ params }: { params: Record<string, string> }): HandlerResult => {
      const id = params.user_id === 'me' ? botId : (params.user_id ?? '');
      const username = state.users.get(id);
      return username
        ? { status: 200, body: { id, username, create_at: 1, update_at: 1, delete_at: 0, roles: 'system_user' } }
        : appError(404, 'app.user.missing_account.const', 'Unable to find the user.');
    },
  };
}

/**
 * A Mattermost REST API v4 double on 127.0.0.1, validating each request against the subset of Mattermost's own
 * OpenAPI document in tests/fixtures/specs/mattermost. Posts are created by the token's bot; reads strip buttons'
 * integrations as the server does. Faults (double.faults) include accept-then-drop: the post is stored, no answer.
 */
export async function startMattermostDouble(opts: { token?: string } = {}): Promise<MattermostDouble> {
  const token = opts.token ?? 'mm-test-token';
  const state = new MattermostState();
  const botId = mmId();
  state.addUser(botId, 'lestrade-bot');
  const double = await startOpenApiDouble({
    spec: loadSpec(MATTERMOST_SPEC),
    handlers: handlers(state, botId),
    authenticate: (headers) => (headers.authorization === `Bearer ${token}` ? token : undefined),
    unauthorized: () =>
      appError(401, 'api.context.session_expired.app_error', 'Invalid or expired session, please login again.'),
    refuse: (kind, errors) =>
      kind === 'not-found'
        ? appError(404, 'api.context.404.app_error', 'Sorry, we could not find the page.')
        : appError(400, 'api.context.invalid_param.app_error', errors.join('; ')),
  });
  return { ...double, state, botId, token };
}
