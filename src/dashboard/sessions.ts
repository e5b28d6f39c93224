import { randomBytes } from 'node:crypto';
import type { RedisClient } from '../redis/redis-connections.js';
import { keysOf } from '../redis/keys.js';

/** How long a dashboard sign-in lasts. */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

export interface Session {
  /** Sent back in forms and the X-CSRF-Token header of every action. */
  csrf: string;
  createdAt: string;
  /** The name of the token signed in with (never the token): who this session's actions are recorded as. */
  name?: string;
}

/**
 * Dashboard sessions: a random id in an HttpOnly cookie, stored in Redis under its digest with a
 * TTL (so every process sees it, and a Redis dump holds no usable cookie). The API token a user
 * signed in with is never stored.
 */
export class SessionStore {
  private readonly keys;

  constructor(
    private readonly redis: RedisClient,
    private readonly ttlSeconds = SESSION_TTL_SECONDS,
  ) {
    this.keys = keysOf(redis);
  }

  async create(name?: string, now = new Date()): Promise<{ id: string; session: Session }> {
    const id = randomBytes(32).toString('base64url');
    const session: Session = {
      csrf: randomBytes(24).toString('base64url'),
      createdAt: now.toISOString(),
      ...(name ? { name } : {}),
    };
    await this.redis.set(this.keys.session(id), JSON.stringify(session), 'EX', this.ttlSeconds);
    return { id, session };
  }

  async get(id: string | undefined): Promise<Session | null> {
    if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
    const text = await this.redis.get(this.keys.session(id));
    return text ? (JSON.parse(text) as Session) : null;
  }

  async destroy(id: string | undefined): Promise<void> {
    if (id) await this.redis.del(this.keys.session(id));
  }

  get ttl(): number {
    return this.ttlSeconds;
  }
}
