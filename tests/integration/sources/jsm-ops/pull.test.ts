import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PermanentError, RetryableError } from '../../../../src/errors.js';
import { createLogger } from '../../../../src/log.js';
import { JsmOpsApi } from '../../../../sources/jsm-ops/api.js';
import { JsmOpsConfigSchema } from '../../../../sources/jsm-ops/config.js';
import { jsmOps } from '../../../../sources/jsm-ops/index.js';
import { JsmOpsPull } from '../../../../sources/jsm-ops/pull.js';
import { startJsmOpsDouble, type JsmOpsDouble } from '../../../helpers/doubles/jsm-ops-double.js';

describe('JSM Operations pull and cloudId lookup', () => {
  let jsm: JsmOpsDouble;
  const api = (cloudId?: string) =>
    new JsmOpsApi({
      apiUrl: jsm.url,
      site: jsm.url,
      cloudId,
      email: jsm.email,
      apiToken: jsm.apiToken,
      timeoutMs: 5_000,
    });
  const lookups = () => jsm.requests.filter((r) => r.path === '/_edge/tenant_info');
  const lists = () => jsm.requests.filter((r) => r.path.endsWith('/v1/alerts'));

  beforeAll(async () => {
    jsm = await startJsmOpsDouble();
    const t0 = Date.parse('2024-06-10T00:00:00Z');
    for (let i = 0; i < 130; i++) {
      jsm.addAlert({
        message: `alert ${i}`,
        priority: i % 2 ? 'P1' : 'P4',
        createdAt: new Date(t0 + i * 1_000),
        extraProperties: { n: String(i) },
        tags: ['db'],
      });
    }
  });
  afterAll(async () => {
    await jsm?.close();
  });
  beforeEach(() => {
    jsm.requests.length = 0;
    jsm.faults.clear();
  });
  afterEach(() => {
    expect(jsm.violations).toEqual([]);
    expect(jsm.responseViolations).toEqual([]);
  });

  it("looks the cloudId up once from the site's /_edge/tenant_info (no credentials sent), then calls under it", async () => {
    const a = api();
    await a.listAlertsPage(undefined, 0, 1);
    await a.getAlert('nope');
    expect(lookups()).toHaveLength(1);
    expect(lookups()[0]!.headers.authorization).toBeUndefined();
    expect(jsm.requests.filter((r) => r.path.startsWith(`/jsm/ops/api/${jsm.cloudId}/v1/`))).toHaveLength(2);
  });

  it('a configured cloudId needs no lookup; a failed lookup is typed and asked again next time', async () => {
    await api(jsm.cloudId).listAlertsPage(undefined, 0, 1);
    expect(lookups()).toHaveLength(0);
    const a = api();
    jsm.faults.add({ path: /^\/_edge\/tenant_info$/, kind: 'status', status: 503 });
    await expect(a.listAlertsPage(undefined, 0, 1)).rejects.toBeInstanceOf(RetryableError);
    await a.listAlertsPage(undefined, 0, 1);
    expect(lookups()).toHaveLength(2);
    jsm.faults.add({ path: /^\/_edge\/tenant_info$/, kind: 'status', status: 404, body: 'Not an Atlassian site' });
    const err = await api()
      .getAlert('x')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermanentError);
    expect((err as Error).message).toBe(
      `Atlassian answered HTTP 404: look up the cloudId of ${new URL(jsm.url).host}: Not an Atlassian site`,
    );
  });

  it('follows links.next by offset until the last page, newest first, with extraProperties as annotations', async () => {
    const issues = await new JsmOpsPull(api(jsm.cloudId), { site: jsm.url, instance: 'x' }, 20).fetchIssues({
      query: 'status: open AND priority: P1',
    });
    expect(issues).toHaveLength(65);
    expect(issues[0]).toMatchObject({
      title: 'alert 129',
      severity: 'critical',
      annotations: { n: '129' },
      labels: { db: 'true', priority: 'P1' },
      url: expect.stringContaining('/jira/ops/alerts/'),
    });
    expect(lists().map((r) => r.query.offset)).toEqual(['0', '20', '40', '60']);
  });

  it('stops at the limit; the registration prepares the client from config (default query "status: open")', async () => {
    const config = JsmOpsConfigSchema.parse({
      siteUrl: jsm.url,
      email: jsm.email,
      apiToken: jsm.apiToken,
      apiUrl: jsm.url,
    });
    const { client, query } = jsmOps.pull!.prepare(config, { limit: 4 }, { log: createLogger('silent'), env: {} });
    expect(query).toEqual({ query: 'status: open', limit: 4 });
    expect((await client.fetchIssues(query)).map((i) => i.title)).toEqual([
      'alert 129',
      'alert 128',
      'alert 127',
      'alert 126',
    ]);
    expect(lists().map((r) => r.query.size)).toEqual(['4']);
  });
});
