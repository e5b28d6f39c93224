import type { Config } from '../config/schema.js';
import type { Usage } from '../records/loop-state.js';
import type { RedisClient } from '../redis/redis-connections.js';
import { RedisScript } from '../redis/run-script.js';
import { keysOf } from '../redis/keys.js';
import { questionCostField } from '../store/extra-fields.js';

const DAY_RETENTION_SECONDS = 400 * 24 * 3600;

/**
 * Once per ledger entry (HSETNX of its cost on the record: `cost` for the investigation, one field
 * per follow-up question), adds its usage and cost to its day's totals: a redelivered job never
 * counts twice. KEYS: record, day. ARGV: cost JSON, prompt tokens, completion tokens, cost amount,
 * day retention, the entry's field, the day's counter (investigations or followUps), 1 when the model
 * has no price (the entry's cost is unknown: counted apart, never as 0).
 */
const RECORD_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HSETNX', KEYS[1], ARGV[6], ARGV[1]) == 0 then return 0 end
redis.call('HINCRBY', KEYS[2], ARGV[7], 1)
redis.call('HINCRBY', KEYS[2], 'promptTokens', ARGV[2])
redis.call('HINCRBY', KEYS[2], 'completionTokens', ARGV[3])
redis.call('HINCRBYFLOAT', KEYS[2], 'cost', ARGV[4])
if ARGV[8] == '1' then redis.call('HINCRBY', KEYS[2], 'unpriced', 1) end
redis.call('EXPIRE', KEYS[2], ARGV[5])
return 1
`;
const RECORD = new RedisScript(RECORD_LUA);

export interface DayUsage {
  date: string;
  investigations: number;
  /** Follow-up questions counted that day (their tokens and cost are in the totals). */
  followUps: number;
  promptTokens: number;
  completionTokens: number;
  /** What the priced entries cost; null when every entry of the day was unpriced (unknown, not free). */
  cost: number | null;
  /** Entries (investigations, follow-ups) whose model has no price in pricing.models: their cost is unknown. */
  unpriced: number;
}

/** What an entry cost; `amount` null when the model has no price (pricing.models.<model>): unknown, not free. */
export interface Cost {
  amount: number | null;
  currency: string;
  model: string;
}

/** The UTC day of a time, as YYYY-MM-DD. */
export function dayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Token usage and cost per investigation and per UTC day, at the configured price per model. */
export class UsageLedger {
  constructor(
    private readonly redis: RedisClient,
    private readonly pricing: Config['pricing'],
    private readonly model: string,
    private readonly now: () => number = Date.now,
  ) {}

  /** What usage costs with this model; null for a model with no configured price (unknown, not free). */
  costOf(usage: Pick<Usage, 'promptTokens' | 'completionTokens'>): number | null {
    const price = Object.hasOwn(this.pricing.models, this.model) ? this.pricing.models[this.model] : undefined;
    if (!price) return null;
    return (usage.promptTokens * price.inputPerMillion + usage.completionTokens * price.outputPerMillion) / 1_000_000;
  }

  /**
   * Counts a finished run's usage once, on the day it finished: the investigation's, or (with
   * `entry`) follow-up question `entry`'s own, each its own ledger entry.
   */
  async record(id: string, usage: Pick<Usage, 'promptTokens' | 'completionTokens'>, entry?: number): Promise<boolean> {
    const amount = this.costOf(usage);
    const cost: Cost = { amount, currency: this.pricing.currency, model: this.model };
    const [field, counter] = entry === undefined ? ['cost', 'investigations'] : [questionCostField(entry), 'followUps'];
    const done = await RECORD.run(
      this.redis,
      [keysOf(this.redis).investigation(id), keysOf(this.redis).usageDay(dayOf(this.now()))],
      [
        JSON.stringify(cost),
        usage.promptTokens,
        usage.completionTokens,
        amount ?? 0,
        DAY_RETENTION_SECONDS,
        field,
        counter,
        amount === null ? 1 : 0,
      ],
    );
    return done === 1;
  }

  async tokensOn(date: string): Promise<number> {
    const [p, c] = await this.redis.hmget(keysOf(this.redis).usageDay(date), 'promptTokens', 'completionTokens');
    return Number(p ?? 0) + Number(c ?? 0);
  }

  /** The last `days` UTC days, newest first. */
  async days(days: number): Promise<DayUsage[]> {
    const now = this.now();
    const dates = Array.from({ length: days }, (_, i) => dayOf(now - i * 86_400_000));
    const rows = await Promise.all(
      dates.map((d) =>
        this.redis.hmget(
          keysOf(this.redis).usageDay(d),
          'investigations',
          'followUps',
          'promptTokens',
          'completionTokens',
          'cost',
          'unpriced',
        ),
      ),
    );
    return dates.map((date, i) => {
      const [inv, asked, p, c, cost, unpriced] = rows[i]!;
      const entries = Number(inv ?? 0) + Number(asked ?? 0);
      const allUnpriced = entries > 0 && Number(unpriced ?? 0) >= entries;
      return {
        date,
        investigations: Number(inv ?? 0),
        followUps: Number(asked ?? 0),
        promptTokens: Number(p ?? 0),
        completionTokens: Number(c ?? 0),
        cost: allUnpriced ? null : Math.round(Number(cost ?? 0) * 1e6) / 1e6,
        unpriced: Number(unpriced ?? 0),
      };
    });
  }

  get currency(): string {
    return this.pricing.currency;
  }
}
