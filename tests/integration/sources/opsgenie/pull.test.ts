import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OpsgenieApi } from '../../../../sources/opsgenie/api.js';
import { OpsgenieConfigSchema } from '../../../../sources/opsgenie/config.js';
import { opsgenie } from '../../../../sources/opsgenie/index.js';
import { OpsgeniePull } from '../../../../sources/opsgenie/pull.js';
import { createLogger } from '../../../../src/log.js';
import { startOpsgenieDouble, type OpsgenieDouble } from '../../../helpers/doubles/opsgenie-double.js';

describe('OpsGenie pull: alert search, every page followed, each alert read in full', () => {
  let og: OpsgenieDouble;
  const lists = () => og.requests.filter((r) => r.method === 'GET' && r.path === '/v2/alerts');
  const gets = () =>
    og.requests.filter(
      (r) => r.method === 'GET' && /^\/v2\/alerts\/[^/]+$/.test(r.path) && !r.path.includes('/requests'),
    );

  beforeAll(async () => {
    og = await startOpsgenieDouble();
    const t0 = Date.parse('2024-06-10T00:00:00Z');
    for (let i = 0; i < 230; i++) {
      og.addAlert({
        message: `alert ${i}`,
        priority: i % 2 ? 'P1' : 'P3',
        createdAt: t0 + i * 1_000,
        details: { n: String(i) },
        description: `d${i}`,
      });
    }
    og.addAlert({ message: 'closed one', priority: 'P1', status: 'closed', createdAt: t0 + 999_000 });
  });
  afterAll(async () => {
    await og?.close();
  });
  afterEach(() => {
    expect(og.violations).toEqual([]);
    expect(og.responseViolations).toEqual([]);
    og.requests.length = 0;
  });

  it('follows paging.next by offset until the last page, newest first', async () => {
    const issues = await new OpsgeniePull(new OpsgenieApi(og.url, og.apiKey), og.url, 50).fetchIssues({
      query: 'status:open priority:P1',
    });
    expect(issues).toHaveLength(115);
    expect(issues[0]).toMatchObject({
      title: 'alert 229',
      severity: 'critical',
      annotations: { n: '229' },
      description: 'd229',
      status: 'open',
    });
    expect(issues.at(-1)?.title).toBe('alert 1');
    expect(lists().map((r) => [r.query.offset, r.query.limit, r.query.query])).toEqual([
      ['0', '50', 'status:open priority:P1'],
      ['50', '50', 'status:open priority:P1'],
      ['100', '50', 'status:open priority:P1'],
    ]);
    expect(gets()).toHaveLength(115);
  });

  it('stops at the limit (-n): one short page, and only those alerts read', async () => {
    const issues = await new OpsgeniePull(new OpsgenieApi(og.url, og.apiKey), og.url).fetchIssues({
      query: 'status:open',
      limit: 3,
    });
    expect(issues.map((i) => i.title)).toEqual(['alert 229', 'alert 228', 'alert 227']);
    expect(lists().map((r) => r.query.limit)).toEqual(['3']);
    expect(gets()).toHaveLength(3);
  });

  it('the registration prepares a client with the default query "status:open"', async () => {
    const config = OpsgenieConfigSchema.parse({ apiKey: og.apiKey, apiUrl: og.url });
    const { client, query } = opsgenie.pull!.prepare(config, { limit: 2 }, { log: createLogger('silent'), env: {} });
    expect(query).toEqual({ query: 'status:open', limit: 2 });
    expect(await client.fetchIssues(query)).toHaveLength(2);
  });
});
