import { beforeEach, describe, expect, it } from 'vitest';
import { PermanentError, RetryableError } from '../../../../src/errors.js';
import { createLogger } from '../../../../src/log.js';
import { recorder, recordFailure, saveRecord, type FailureContext } from '../../../../src/delivery/delivery-record.js';
import { WriteRefusedError } from '../../../../src/delivery/write-rca.js';
import type { WriteBackRecord } from '../../../../src/records/write-back-record.js';
import { InvestigationStore } from '../../../../src/store/investigation-store.js';
import { anIssue } from '../../../helpers/issue.js';
import { claimIssue } from '../../../helpers/store-paths.js';
import { redisClient } from '../../../helpers/redis-client.js';

const r = redisClient();
let store: InvestigationStore;
let id: string;

beforeEach(async () => {
  store = new InvestigationStore(r.client, { dedupTtlSeconds: 3600, retentionSeconds: 3600 });
  ({ id } = await claimIssue(store, anIssue('OPS-7', { locator: { key: 'OPS-7', ref: {} } })));
});

const pending: WriteBackRecord = {
  target: 'OPS-7',
  status: 'pending',
  commentId: 'c-1',
  url: null,
  attempts: 1,
  error: 'HTTP 502',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

describe('recorder', () => {
  it('keeps what the current record holds, fixes target and destination, and counts this attempt', () => {
    const record = recorder({ target: 'slack:#ops', destination: 'slack:#ops' }, 3, pending)({ status: 'written' });
    expect(record).toMatchObject({
      target: 'slack:#ops',
      destination: 'slack:#ops',
      status: 'written',
      commentId: 'c-1',
      error: 'HTTP 502',
      attempts: 3,
    });
    expect(record.updatedAt).not.toBe(pending.updatedAt);
  });

  it('starts a pending record when there is none', () => {
    expect(recorder({ target: 'OPS-7' }, 1, undefined)({})).toMatchObject({
      target: 'OPS-7',
      status: 'pending',
      commentId: null,
      url: null,
      error: null,
      attempts: 1,
    });
  });
});

describe('saveRecord', () => {
  it("keeps a source's own record and each destination's apart", async () => {
    await saveRecord(store, id, { ...pending, status: 'written' });
    await saveRecord(store, id, { ...pending, target: 'Teams', destination: 'teams', status: 'failed' });
    await saveRecord(store, id, { ...pending, target: '#ops', destination: 'slack:#ops' });
    const records = (await store.get(id))!.writeBacks;
    expect(records.find((w) => !w.destination)?.status).toBe('written');
    expect(records.find((w) => w.destination === 'teams')?.status).toBe('failed');
    expect(records.find((w) => w.destination === 'slack:#ops')?.target).toBe('#ops');
    expect(records).toHaveLength(3);
  });
});

describe('recordFailure', () => {
  const context = (over: Partial<FailureContext> = {}): FailureContext => ({
    id,
    lastAttempt: false,
    record: recorder({ target: 'OPS-7' }, 2, pending),
    store,
    log: createLogger('silent'),
    what: 'write-back',
    fields: {},
    save: true,
    ...over,
  });
  const own = async () => (await store.get(id))!.writeBacks.find((w) => !w.destination);

  it('records a retryable failure as pending and rethrows it as it is', async () => {
    const err = new RetryableError('HTTP 429', { retryAfterMs: 1_500 });
    await expect(recordFailure(err, context())).rejects.toBe(err);
    expect(await own()).toMatchObject({ status: 'pending', error: 'HTTP 429', attempts: 2 });
  });

  it('records the last attempt as failed, and makes an untyped error retryable', async () => {
    const failing = recordFailure(new Error('socket hang up'), context({ lastAttempt: true }));
    await expect(failing).rejects.toBeInstanceOf(RetryableError);
    expect(await own()).toMatchObject({ status: 'failed', error: 'socket hang up' });
  });

  it('records a permanent failure as failed at once', async () => {
    await expect(recordFailure(new PermanentError('HTTP 403'), context())).rejects.toBeInstanceOf(PermanentError);
    expect(await own()).toMatchObject({ status: 'failed', error: 'HTTP 403' });
  });

  it('records a refusal as refused, never retried', async () => {
    const err = new WriteRefusedError('public repository');
    await expect(recordFailure(err, context())).rejects.toBe(err);
    expect(await own()).toMatchObject({ status: 'refused', error: 'public repository' });
  });

  it('leaves the record as it stands when told not to save', async () => {
    await saveRecord(store, id, { ...pending, status: 'written', error: null });
    await expect(recordFailure(new Error('HTTP 500'), context({ save: false }))).rejects.toThrow('HTTP 500');
    expect(await own()).toMatchObject({ status: 'written', error: null });
  });
});
