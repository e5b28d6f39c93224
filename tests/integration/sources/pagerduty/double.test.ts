import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPagerDutyDouble, type PagerDutyDouble } from '../../../helpers/doubles/pagerduty-double.js';

/** The double refuses what PagerDuty refuses, and records it: the spec's rules and those it states in prose. */
let pd: PagerDutyDouble;
let incidentId = '';
const headers = (over: Record<string, string | undefined> = {}) =>
  Object.fromEntries(
    Object.entries({
      authorization: `Token token=${pd.apiKey}`,
      accept: 'application/vnd.pagerduty+json;version=2',
      'content-type': 'application/json',
      from: 'lestrade@example.com',
      ...over,
    }).filter((e): e is [string, string] => e[1] !== undefined),
  );
const post = (body: unknown, over: Record<string, string | undefined> = {}) =>
  fetch(`${pd.url}/incidents/${incidentId}/notes`, {
    method: 'POST',
    headers: headers(over),
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  pd = await startPagerDutyDouble({ clock: () => new Date('2026-11-30T12:00:00Z') });
  incidentId = pd.addIncident({ title: 'Checkout latency', serviceId: 'PSVC001' }).id;
});
afterAll(async () => {
  await pd.close();
});
afterEach(() => {
  expect(pd.responseViolations).toEqual([]);
  pd.violations.length = 0;
});

describe('PagerDuty double: notes', () => {
  it('accepts a note from a user of the account, with content', async () => {
    const res = await post({ note: { content: 'Firefighters are on the scene.' } });
    expect(res.status).toBe(200);
    expect((await res.json()).note).toMatchObject({
      content: 'Firefighters are on the scene.',
      user: { summary: 'Lestrade Bot', type: 'user_reference' },
    });
    expect(pd.violations).toEqual([]);
  });

  it.each([
    ['no From header', { note: { content: 'x' } }, { from: undefined }, /from/i],
    ['no content', { note: {} }, {}, /content/],
    ['no note', { content: 'x' }, {}, /note/],
    ['blank content', { note: { content: '  \n' } }, {}, /blank/],
    [
      'a From that is no user of the account',
      { note: { content: 'x' } },
      { from: 'mallory@example.com' },
      /not a user of the account/,
    ],
    ['content over the limit', { note: { content: 'x'.repeat(25_001) } }, {}, /limit 25000/],
  ] as const)('refuses %s with 400 and records a violation', async (_what, body, over, error) => {
    const res = await post(body, over);
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toBe('Invalid Input Provided');
    expect(pd.violations).toHaveLength(1);
    expect(pd.violations[0]!.errors.join(' ')).toMatch(error);
  });

  it('refuses a request without the API token (401), and an unknown incident (404)', async () => {
    expect((await post({ note: { content: 'x' } }, { authorization: 'Token token=wrong' })).status).toBe(401);
    const missing = await fetch(`${pd.url}/incidents/PNOPE00/notes`, { headers: headers() });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { message: 'Not Found', code: 2100 } });
  });
});

describe('PagerDuty double: incidents', () => {
  it('pages with offset/limit and `more`, and lists only the last month unless date_range=all', async () => {
    pd.addIncident({ title: 'old one', serviceId: 'PSVC001', createdAt: '2026-09-01T00:00:00Z' });
    for (let i = 0; i < 4; i++)
      pd.addIncident({ title: `new ${i}`, serviceId: 'PSVC002', status: i % 2 ? 'acknowledged' : 'triggered' });
    const list = async (q: string) =>
      (await (await fetch(`${pd.url}/incidents?${q}`, { headers: headers() })).json()) as {
        incidents: Array<{ title: string }>;
        more: boolean;
      };
    const first = await list('limit=2&offset=0&statuses[]=triggered&statuses[]=acknowledged');
    expect([first.incidents.length, first.more]).toEqual([2, true]);
    expect((await list('limit=100')).incidents.map((i) => i.title)).not.toContain('old one');
    expect((await list('limit=100&date_range=all')).incidents.map((i) => i.title)).toContain('old one');
    expect(
      (await list('limit=100&date_range=all&service_ids[]=PSVC002&statuses[]=acknowledged')).incidents.map(
        (i) => i.title,
      ),
    ).toEqual(['new 1', 'new 3']);
    expect(pd.violations).toEqual([]);
  });
});
