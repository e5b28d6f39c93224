import { randomBytes } from 'node:crypto';

/** A post as the double keeps it: what was sent, and how many times it was patched. */
export interface MmStoredPost {
  id: string;
  channel_id: string;
  user_id: string;
  root_id: string;
  message: string;
  props: Record<string, unknown>;
  create_at: number;
  update_at: number;
  edits: number;
}

/** A Mattermost id: 26 lower-case letters and digits. */
export function mmId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(26)].map((b) => alphabet[b % alphabet.length]).join('');
}

/** The server's state: channels, users, and posts in creation order. */
export class MattermostState {
  readonly channels = new Set<string>();
  readonly users = new Map<string, string>();
  readonly posts: MmStoredPost[] = [];
  /** Interactive dialogs opened (POST /api/v4/actions/dialogs/open), oldest first. */
  readonly dialogs: Array<{ trigger_id: string; url: string; dialog: Record<string, any> }> = [];
  private clock = Date.parse('2026-12-01T08:00:00Z');

  addUser(id: string, username: string): void {
    this.users.set(id, username);
  }

  get(id: string): MmStoredPost | undefined {
    return this.posts.find((p) => p.id === id);
  }

  add(p: Omit<MmStoredPost, 'id' | 'create_at' | 'update_at' | 'edits'>): MmStoredPost {
    const now = ++this.clock;
    const post: MmStoredPost = { ...p, id: mmId(), create_at: now, update_at: now, edits: 0 };
    this.posts.push(post);
    return post;
  }

  touch(p: MmStoredPost): void {
    p.update_at = ++this.clock;
    p.edits += 1;
  }

  /** Top-level posts of a channel, oldest first. */
  roots(channel: string): MmStoredPost[] {
    return this.posts.filter((p) => p.channel_id === channel && !p.root_id);
  }

  /** The replies under a root post, oldest first. */
  replies(rootId: string): MmStoredPost[] {
    return this.posts.filter((p) => p.root_id === rootId);
  }
}

/** A post as the API shows it: a button's integration (its URL and context) stays on the server, as Mattermost's does. */
export function forClient(p: MmStoredPost): Record<string, unknown> {
  const { edits: _edits, ...rest } = p;
  const attachments = p.props.attachments;
  if (!Array.isArray(attachments)) return rest;
  const stripped = attachments.map((a: Record<string, unknown>) => ({
    ...a,
    ...(Array.isArray(a.actions)
      ? { actions: a.actions.map(({ integration: _i, ...action }: Record<string, unknown>) => action) }
      : {}),
  }));
  return { ...rest, props: { ...p.props, attachments: stripped } };
}
