import { PermanentError } from '../../src/errors.js';
import { vendorFailure, vendorUnreachable } from '../../src/outbound-http/http-failure.js';
import { pathSegment } from '../../src/outbound-http/path-segment.js';

/** A post as the REST API answers it (the fields we read). */
export interface MmPost {
  id: string;
  channel_id: string;
  user_id: string;
  root_id?: string;
  message: string;
  create_at?: number;
  props?: Record<string, unknown>;
}

export interface MmPostList {
  order: string[];
  posts: Record<string, MmPost>;
}

export interface MmUser {
  id: string;
  username: string;
}

/** What a post we write carries. */
export interface NewPost {
  channel_id: string;
  message: string;
  root_id?: string;
  props: Record<string, unknown>;
}

/**
 * Mattermost's REST API v4 with a bearer token, on fetch (see docs/dependencies.md for why not
 * @mattermost/client). Every failure is typed: 408, 429, 5xx and no answer are retried by the queue;
 * other 4xx are permanent, naming the setting to fix. Nothing here retries a write.
 */
export class MattermostClient {
  private readonly base: string;

  constructor(
    url: string,
    private readonly token: string,
    private readonly timeoutMs: number,
  ) {
    this.base = `${url.replace(/\/+$/, '')}/api/v4`;
  }

  me(): Promise<MmUser> {
    return this.call<MmUser>('GET', '/users/me');
  }

  user(id: string): Promise<MmUser> {
    return this.call<MmUser>('GET', `/users/${pathSegment(id)}`);
  }

  createPost(post: NewPost): Promise<MmPost> {
    return this.call<MmPost>('POST', '/posts', post);
  }

  patchPost(id: string, patch: { message: string; props: Record<string, unknown> }): Promise<MmPost> {
    return this.call<MmPost>('PUT', `/posts/${pathSegment(id)}/patch`, patch);
  }

  getPost(id: string): Promise<MmPost> {
    return this.call<MmPost>('GET', `/posts/${pathSegment(id)}`);
  }

  /** Opens an interactive dialog for the person whose click gave the trigger id (valid for a few seconds). */
  async openDialog(triggerId: string, url: string, dialog: Record<string, unknown>): Promise<void> {
    await this.call<unknown>('POST', '/actions/dialogs/open', { trigger_id: triggerId, url, dialog });
  }

  /** A page of the channel's posts, newest first. */
  channelPosts(channel: string, page: number, perPage: number): Promise<MmPostList> {
    return this.call<MmPostList>('GET', `/channels/${pathSegment(channel)}/posts?page=${page}&per_page=${perPage}`);
  }

  /** The root post and every reply of its thread. */
  thread(rootId: string): Promise<MmPostList> {
    return this.call<MmPostList>('GET', `/posts/${pathSegment(rootId)}/thread`);
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'error',
      });
    } catch (err) {
      throw vendorUnreachable('Mattermost', err);
    }
    // A body we cannot read is judged by the status alone: the empty text only loses Mattermost's error detail.
    const text = await res.text().catch(() => '');
    if (!res.ok) {
      const failure = vendorFailure('Mattermost', res.status, (h) => res.headers.get(h), reasonOf(text));
      if (failure instanceof PermanentError) throw new PermanentError(`${failure.message}; ${fixFor(res.status)}`);
      throw failure;
    }
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new PermanentError(
        `Mattermost answered ${method} ${path} with something that is not JSON; check MATTERMOST_URL`,
      );
    }
  }
}

/** Mattermost's AppError names what went wrong in `message` (and `id`); the rest of a body is not shown. */
function reasonOf(text: string): string {
  try {
    const e = JSON.parse(text) as { id?: unknown; message?: unknown };
    return [e.message, e.id].filter((s) => typeof s === 'string' && s).join(' · ');
  } catch {
    return '';
  }
}

function fixFor(status: number): string {
  if (status === 401) return 'check MATTERMOST_TOKEN (destinations.mattermost.token): a bot or personal access token';
  if (status === 403)
    return "the token's account may not do this: add the bot to the channel (MATTERMOST_CHANNEL) with post permissions";
  if (status === 404) return 'check MATTERMOST_URL and the channel id (MATTERMOST_CHANNEL or the route)';
  return 'check destinations.mattermost';
}
