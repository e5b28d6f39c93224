import { describe, expect, it } from 'vitest';
import { keys } from '../../../../src/redis/keys.js';
import { encodeField } from '../../../../src/redis/lossless.js';
import { issueFacts } from '../../../../src/store/issue-facts.js';
import { redisClient } from '../../../helpers/redis-client.js';

// The dashboard list's severity and labels, read from each record's stored issue.

const db = redisClient();

async function stored(id: string, issue: string): Promise<void> {
  await db.client.hset(keys.investigation(id), 'issue', encodeField(issue));
}

describe('issueFacts', () => {
  it("reads each record's severity and labels, in the order asked, with defaults for an issue that has none", async () => {
    await stored('a', JSON.stringify({ severity: 'critical', labels: { team: 'db' } }));
    await stored('b', JSON.stringify({ title: 'no severity or labels' }));
    expect(await issueFacts(db.client, ['b', 'a'])).toEqual([
      { severity: 'unknown', labels: {} },
      { severity: 'critical', labels: { team: 'db' } },
    ]);
  });

  it('gives null for a record that is gone and for a damaged issue, the others still read', async () => {
    await stored('ok', JSON.stringify({ severity: 'warning', labels: {} }));
    await stored('damaged', '{"severity": ');
    expect(await issueFacts(db.client, ['gone', 'damaged', 'ok'])).toEqual([
      null,
      null,
      { severity: 'warning', labels: {} },
    ]);
  });

  it('answers an empty list for no ids', async () => {
    expect(await issueFacts(db.client, [])).toEqual([]);
  });
});
