import type { Config } from '../config/schema.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { RedisScript } from '../redis/run-script.js';
import { keysOf } from '../redis/keys.js';
import { dayOf, UsageLedger } from './usage-ledger.js';

const HOUR_MS = 3_600_000;

/**
 * Atomically, for each hourly scope (a sorted set of investigation starts in the last hour): if the
 * investigation was counted already (a retry), it passes; else if the scope is full and it may
 * not bypass, the reply names the scope and when its oldest start leaves the window. Only when
 * every scope passes is the start counted in all of them.
 * KEYS: one sorted set per scope. ARGV: now (ms), id, bypass (1/0), then each scope's limit.
 */
const TRY_START_LUA = `
local now, id, bypass = tonumber(ARGV[1]), ARGV[2], ARGV[3] == '1'
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - ${HOUR_MS})
  if not redis.call('ZSCORE', key, id) and not bypass and redis.call('ZCARD', key) >= tonumber(ARGV[3 + i]) then
    local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
    return {i, tonumber(oldest[2]) + ${HOUR_MS}}
  end
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, 'NX', now, id)
  redis.call('PEXPIRE', key, ${HOUR_MS * 2})
end
return {0, 0}
`;
const TRY_START = new RedisScript(TRY_START_LUA);

export type BudgetDecision = { ok: true } | { ok: false; reason: string; retryAt: number };

interface Scope {
  key: string;
  limit: number;
  label: string;
}

/** What an investigation is, for its budgets. */
export interface BudgetSubject {
  id: string;
  source: string;
  severity: string;
  alertname?: string;
}

/**
 * Limits on what investigations may spend: starts per hour (global, per source, per alertname,
 * a sliding hour) and LLM tokens per UTC day. Work over a limit is not dropped: the caller keeps
 * it queued and asks again at retryAt. `now` is injectable so tests drive time.
 */
export class BudgetGuard {
  constructor(
    private readonly redis: RedisClient,
    private readonly config: Config['budgets'],
    private readonly ledger: UsageLedger,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    const c = this.config;
    return Boolean(
      c.investigationsPerHour ||
      c.tokensPerDay ||
      Object.keys(c.perSourcePerHour).length ||
      Object.keys(c.perAlertnamePerHour).length,
    );
  }

  async tryStart(s: BudgetSubject): Promise<BudgetDecision> {
    const now = this.now();
    if (this.config.tokensPerDay) {
      const used = await this.ledger.tokensOn(dayOf(now));
      if (used >= this.config.tokensPerDay) {
        const retryAt = Date.parse(`${dayOf(now)}T00:00:00Z`) + 24 * HOUR_MS;
        return {
          ok: false,
          reason: `budget: ${this.config.tokensPerDay} LLM tokens per day used (${used}); waits for the next UTC day`,
          retryAt,
        };
      }
    }
    const scopes = this.scopes(s);
    if (scopes.length === 0) return { ok: true };
    const bypass = this.config.criticalBypassesHourly && s.severity === 'critical';
    const [index, retryAt] = (await TRY_START.run(
      this.redis,
      scopes.map((x) => x.key),
      [now, s.id, bypass ? 1 : 0, ...scopes.map((x) => x.limit)],
    )) as [number, number];
    if (index === 0) return { ok: true };
    const scope = scopes[index - 1]!;
    return {
      ok: false,
      reason: `budget: ${scope.limit} investigations per hour (${scope.label}) reached; next start after ${new Date(retryAt).toISOString()}`,
      retryAt,
    };
  }

  /** Per scope: how many started in the last hour, and its limit. For /readyz and the API. */
  async status(): Promise<Array<{ scope: string; used: number; limit: number }>> {
    const now = this.now();
    const scopeKey = keysOf(this.redis).budgetStarts;
    const scopes = [
      ...(this.config.investigationsPerHour
        ? [
            {
              key: scopeKey('all'),
              limit: this.config.investigationsPerHour,
              label: 'investigations per hour (global)',
            },
          ]
        : []),
      ...Object.entries(this.config.perSourcePerHour).map(([src, limit]) => ({
        key: scopeKey(`source:${src}`),
        limit,
        label: `investigations per hour (source ${src})`,
      })),
      ...Object.entries(this.config.perAlertnamePerHour).map(([name, limit]) => ({
        key: scopeKey(`alertname:${name}`),
        limit,
        label: `investigations per hour (alertname ${name})`,
      })),
    ];
    const counts = await Promise.all(scopes.map((x) => this.redis.zcount(x.key, now - HOUR_MS, '+inf')));
    const out = scopes.map((x, i) => ({ scope: x.label, used: counts[i]!, limit: x.limit }));
    if (this.config.tokensPerDay)
      out.push({
        scope: 'LLM tokens per day',
        used: await this.ledger.tokensOn(dayOf(now)),
        limit: this.config.tokensPerDay,
      });
    return out;
  }

  private scopes(s: BudgetSubject): Scope[] {
    const c = this.config;
    const out: Scope[] = [];
    const scopeKey = keysOf(this.redis).budgetStarts;
    if (c.investigationsPerHour) out.push({ key: scopeKey('all'), limit: c.investigationsPerHour, label: 'global' });
    const bySource = Object.hasOwn(c.perSourcePerHour, s.source) ? c.perSourcePerHour[s.source] : undefined;
    if (bySource) out.push({ key: scopeKey(`source:${s.source}`), limit: bySource, label: `source ${s.source}` });
    const byName =
      s.alertname !== undefined && Object.hasOwn(c.perAlertnamePerHour, s.alertname)
        ? c.perAlertnamePerHour[s.alertname]
        : undefined;
    if (byName)
      out.push({ key: scopeKey(`alertname:${s.alertname}`), limit: byName, label: `alertname ${s.alertname}` });
    return out;
  }
}
