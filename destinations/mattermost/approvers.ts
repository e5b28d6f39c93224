import type { MattermostClient } from './mattermost-client.js';
import { MATTERMOST_ID } from './config.js';

const NAME_CACHE_MS = 5 * 60_000;

export type ApproverVerdict = { ok: true; name: string | null } | { ok: false; why: string };

/**
 * `destinations.mattermost.approvers`: user ids count as they are; usernames are matched against the clicker's
 * username, read with GET /api/v4/users/{id} (the callback's own user_name is not relied on) and cached.
 */
export class Approvers {
  private readonly ids: Set<string>;
  private readonly names: Set<string>;
  private readonly cache = new Map<string, { name: string; at: number }>();

  constructor(
    private readonly client: MattermostClient,
    list: readonly string[],
    private readonly now: () => number = Date.now,
  ) {
    this.ids = new Set(list.filter((s) => MATTERMOST_ID.test(s)));
    this.names = new Set(list.filter((s) => !MATTERMOST_ID.test(s)).map((s) => s.replace(/^@/, '')));
  }

  /** The clicker's username (null when it could not be read), cached for five minutes. */
  async nameOf(userId: string): Promise<string | null> {
    const hit = this.cache.get(userId);
    if (hit && this.now() - hit.at < NAME_CACHE_MS) return hit.name;
    try {
      const u = await this.client.user(userId);
      this.cache.set(userId, { name: u.username, at: this.now() });
      return u.username;
    } catch {
      return null;
    }
  }

  async check(userId: string): Promise<ApproverVerdict> {
    const name = await this.nameOf(userId);
    if (this.ids.has(userId) || (name !== null && this.names.has(name))) return { ok: true, name };
    const why = `you (${name ?? userId}) are not among the approvers: add your user id or username to destinations.mattermost.approvers`;
    return { ok: false, why: name === null && this.names.size ? `${why} (your username could not be read)` : why };
  }
}
