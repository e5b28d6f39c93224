import type { Redis } from 'ioredis';
import type { FeedbackEntry, Verdict } from '../../src/records/feedback.js';
import { keysOf } from '../../src/redis/keys.js';
import { FeedbackStore } from '../../src/store/feedback-store.js';
import { InvestigationStore } from '../../src/store/investigation-store.js';
import { anAlert } from './issue.js';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** One investigation as the quality tests want it: claimed at `createdAt`, its outcome's fields set explicitly. */
export interface Seeded {
  fingerprint: string;
  alertname?: string;
  source?: string;
  createdAt: number;
  /** Default: completed, finished 5 minutes after it was created. */
  status?: string;
  finishedAt?: number | null;
  resolvedAt?: number | null;
  cost?: { amount: number | null; currency: string; model: string } | null;
  run?: number;
  followUps?: number;
  toolCalls?: unknown[];
  rca?: string;
  title?: string;
}

/** A store with a long retention, so records claimed days "ago" stay indexed. */
export const qualityStore = (client: Redis): InvestigationStore =>
  new InvestigationStore(client, { dedupTtlSeconds: 3600, retentionSeconds: 400 * 86_400 });

let n = 0;

/**
 * Claims an alert through the real claim script at an explicit time (so its firing is recorded as
 * intake records it), then writes the fields a finished run would have, with explicit timestamps.
 */
export async function seedInvestigation(store: InvestigationStore, client: Redis, s: Seeded): Promise<string> {
  n += 1;
  const issue = anAlert(`${s.fingerprint}@${n}`, {
    fingerprint: s.fingerprint,
    source: s.source ?? 'alertmanager',
    title: s.title ?? `${s.alertname ?? 'Alert'} firing`,
    labels: s.alertname ? { alertname: s.alertname } : {},
  });
  const { items } = await store.claims.claimMany(
    [{ kind: 'claim', issue, status: 'queued', priority: 0 }],
    new Date(s.createdAt),
  );
  const id = items[0]!.id;
  const finishedAt = s.finishedAt === undefined ? s.createdAt + 5 * 60_000 : s.finishedAt;
  const fields: Record<string, string> = {
    status: s.status ?? 'completed',
    rca: s.rca ?? '## Root cause\nthe disk filled up',
    toolCalls: JSON.stringify(s.toolCalls ?? []),
    ...(finishedAt === null ? {} : { finishedAt: new Date(finishedAt).toISOString() }),
    ...(s.resolvedAt ? { resolvedAt: new Date(s.resolvedAt).toISOString(), issueStatus: 'resolved' } : {}),
    ...(s.cost ? { cost: JSON.stringify(s.cost) } : {}),
    ...(s.run ? { run: String(s.run) } : {}),
    conversation: JSON.stringify(
      Array.from({ length: s.followUps ?? 0 }, (_v, i) => ({
        question: `q${i}`,
        answer: 'a',
        status: 'answered',
        askedAt: new Date(s.createdAt).toISOString(),
        answeredAt: new Date(s.createdAt).toISOString(),
        error: null,
      })),
    ),
  };
  await client.hset(keysOf(client).investigation(id), fields);
  return id;
}

/** A verdict as a person gives it, through the feedback store. */
export async function giveVerdict(
  client: Redis,
  id: string,
  verdict: Verdict,
  user: string,
  at: number,
  over: Partial<FeedbackEntry> = {},
): Promise<void> {
  const entry: FeedbackEntry = { verdict, by: { via: 'api', user }, at: new Date(at).toISOString(), ...over };
  await new FeedbackStore(client).record(id, entry);
}
