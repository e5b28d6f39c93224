import { describe, expect, it } from 'vitest';
import type { Severity } from '../../../../src/issue.js';
import { keys } from '../../../../src/redis/keys.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { redisClient } from '../../../helpers/redis-client.js';
import { anIssue } from '../../../helpers/issue.js';
import { beginRun, claimIssue } from '../../../helpers/store-paths.js';

// The list behind GET /api/investigations and the dashboard, narrowed by status, source, severity and
// creation time, newest first, read in pages of the index when a filter is given.

const db = redisClient();
const store = () => new InvestigationStore(db.client, { dedupTtlSeconds: 1000, retentionSeconds: 2000 });

interface Spec {
  source?: string;
  severity?: Severity;
  running?: boolean;
}

/** Now: the index's scores are creation times, and a claim drops entries older than the retention. */
const BASE = Date.now();

/** Claims one record per spec; the index orders them by position (the first is the oldest). */
async function claimAll(specs: Spec[]): Promise<string[]> {
  const s = store();
  const ids: string[] = [];
  for (const [i, spec] of specs.entries()) {
    const issue = anIssue(`i${i}`, { source: spec.source ?? 'tickets', severity: spec.severity ?? 'warning' });
    const { id } = await claimIssue(s, issue);
    if (spec.running) await beginRun(s, id, 1);
    await db.client.zadd(keys.index(), BASE + i, id);
    ids.push(id);
  }
  return ids;
}
const idsOf = (list: Array<{ id: string }>) => list.map((s) => s.id);

describe('InvestigationStore.list', () => {
  it('keeps the records whose every given field matches, newest first', async () => {
    const ids = await claimAll([
      { source: 'github', severity: 'critical' },
      { source: 'jira', severity: 'critical', running: true },
      { source: 'github', severity: 'info', running: true },
      { source: 'github', severity: 'critical', running: true },
    ]);
    const s = store();
    expect(idsOf(await s.list(50, 0, { source: ['github'] }))).toEqual([ids[3], ids[2], ids[0]]);
    expect(idsOf(await s.list(50, 0, { status: ['running'] }))).toEqual([ids[3], ids[2], ids[1]]);
    expect(idsOf(await s.list(50, 0, { severity: ['critical'] }))).toEqual([ids[3], ids[1], ids[0]]);
    expect(idsOf(await s.list(50, 0, { source: ['github'], status: ['running'], severity: ['critical'] }))).toEqual([
      ids[3],
    ]);
    expect(idsOf(await s.list(50, 0, { source: ['jira', 'github'], severity: ['info', 'warning'] }))).toEqual([ids[2]]);
    expect(await s.list(50, 0, { status: ['failed'] })).toEqual([]);
  });

  it('bounds the list by creation time, with a filter or without', async () => {
    const ids = await claimAll([{}, { severity: 'critical' }, {}, { severity: 'critical' }]);
    const s = store();
    expect(idsOf(await s.list(50, 0, { sinceMs: BASE + 2 }))).toEqual([ids[3], ids[2]]);
    expect(idsOf(await s.list(50, 0, { sinceMs: BASE + 1, severity: ['critical'] }))).toEqual([ids[3], ids[1]]);
  });

  it('reads past the first page of the index to find older matches, then pages the matches by offset and limit', async () => {
    // Four critical records oldest, then 230 newer ones that do not match: the first page of 200 holds no match.
    const ids = await claimAll([
      ...Array.from({ length: 4 }, () => ({ severity: 'critical' as const })),
      ...Array.from({ length: 230 }, () => ({})),
    ]);
    const s = store();
    expect(idsOf(await s.list(50, 0, { severity: ['critical'] }))).toEqual([ids[3], ids[2], ids[1], ids[0]]);
    expect(idsOf(await s.list(2, 1, { severity: ['critical'] }))).toEqual([ids[2], ids[1]]);
    expect(idsOf(await s.list(2, 3, { severity: ['critical'] }))).toEqual([ids[0]]);
    const unfiltered = await s.list(3, 2);
    expect(idsOf(unfiltered)).toEqual([ids[231], ids[230], ids[229]]);
  }, 30_000);

  it('gives the newest `limit` records when every record matches', async () => {
    const ids = await claimAll(Array.from({ length: 210 }, () => ({})));
    const s = store();
    const list = await s.list(5, 0, { severity: ['warning'] });
    expect(idsOf(list)).toEqual([ids[209], ids[208], ids[207], ids[206], ids[205]]);
  }, 30_000);
});
