import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import type { Issue } from '../../../../src/issue.js';
import { createLogger } from '../../../../src/log.js';
import { runPoll, startPolling } from '../../../../src/polling/poll-runner.js';
import { Intake } from '../../../../src/queue/intake-queue.js';
import type { Poller } from '../../../../src/registration/source.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { QUEUE_PREFIX } from '../../../../src/redis/queue-names.js';
import { keys } from '../../../../src/redis/keys.js';
import { intakeOnRedis } from '../../../helpers/intake-on-redis.js';
import { waitFor } from '../../../helpers/service.js';
import { anIssue } from '../../../helpers/issue.js';

const db = intakeOnRedis();
const log = createLogger('silent');

const ticket = (key: string): Issue => anIssue(key, { sourceInstance: 't', title: key, severity: 'unknown' });

/** A source whose issues change over time; poll(cursor) answers those updated at or after the cursor. */
function fakeSource(id = 'tickets:all') {
  const updates: Array<{ key: string; at: string }> = [];
  const cursors: Array<string | null> = [];
  const poller: Poller = {
    id,
    everyMs: 200,
    async poll(cursor) {
      cursors.push(cursor);
      const seen = updates.filter((u) => !cursor || u.at >= cursor);
      return {
        issues: seen.map((u) => ticket(u.key)),
        cursor:
          seen
            .map((u) => u.at)
            .sort()
            .at(-1) ??
          cursor ??
          '1970-01-01T00:00:00Z',
      };
    },
  };
  return { poller, updates, cursors };
}

describe('polling', () => {
  it('resumes from the stored cursor, so overlapping polls and a restart investigate each issue once', async () => {
    const src = fakeSource();
    src.updates.push({ key: 'OPS-1', at: '2026-11-30T08:00:00Z' }, { key: 'OPS-2', at: '2026-11-30T08:05:00Z' });
    expect(await runPoll(src.poller, db.conn, db.intake, log)).toEqual({ queued: 2, seen: 2 });
    src.updates.push({ key: 'OPS-3', at: '2026-11-30T08:10:00Z' });
    // A "restarted" runner: same Redis, fresh poller object.
    const again = fakeSource();
    again.updates.push(...src.updates);
    expect(await runPoll(again.poller, db.conn, db.intake, log)).toEqual({ queued: 1, seen: 2 });
    expect(again.cursors).toEqual(['2026-11-30T08:05:00Z']);
    expect(await db.conn.zcard(keys.index())).toBe(3);
  });

  it('keeps the cursor where it was when intake fails, so nothing is missed', async () => {
    const src = fakeSource();
    src.updates.push({ key: 'OPS-1', at: '2026-11-30T08:00:00Z' });
    await runPoll(src.poller, db.conn, db.intake, log);
    src.updates.push({ key: 'OPS-2', at: '2026-11-30T09:00:00Z' });
    const broken = new Intake(
      db.conn,
      new InvestigationStore(db.conn, { dedupTtlSeconds: 3600, retentionSeconds: 3600 }),
      { attempts: 1, backoffMs: 1, retentionSeconds: 3600 },
    );
    broken.accept = async () => {
      throw new Error('Redis went away');
    };
    await expect(runPoll(src.poller, db.conn, broken, log)).rejects.toThrow('Redis went away');
    expect(await db.conn.get(keys.pollCursor('tickets:all'))).toBe('2026-11-30T08:00:00Z');
    expect((await runPoll(src.poller, db.conn, db.intake, log))?.queued).toBe(1);
    await broken.close();
  });

  it('runs one poll of a poller at a time', async () => {
    const src = fakeSource();
    await db.conn.set(`${keys.pollCursor('tickets:all')}:lock`, 'another process', 'PX', 5_000);
    expect(await runPoll(src.poller, db.conn, db.intake, log)).toBeNull();
    expect(src.cursors).toEqual([]);
  });

  it('schedules pollers with BullMQ and drops schedules of pollers no longer configured', async () => {
    const workerConn = new Redis(db.redis.url, { maxRetriesPerRequest: null });
    const src = fakeSource('tickets:new');
    src.updates.push({ key: 'OPS-9', at: '2026-11-30T08:00:00Z' });
    const old = await startPolling([fakeSource('tickets:old').poller], db.conn, workerConn, db.intake, log);
    await old();
    const stop = await startPolling([src.poller], db.conn, workerConn, db.intake, log);
    try {
      await waitFor('a scheduled poll', async () => (await db.conn.zcard(keys.index())) === 1);
      const { Queue } = await import('bullmq');
      const q = new Queue('polls', { connection: db.conn, prefix: QUEUE_PREFIX });
      const schedulers = await q.getJobSchedulers();
      await q.close();
      expect(schedulers).toHaveLength(1);
    } finally {
      await stop();
      workerConn.disconnect();
    }
  });
});
