/**
 * The Loki toolset against a Loki double (tests/helpers/doubles/loki-double.ts): Grafana Loki is not
 * packaged here (Debian's `loki` is an unrelated program), so the double answers in Loki's documented
 * HTTP response format and refuses bad requests as Loki does (400 with its reason, 401 "no org id").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolExecutor } from '../../../../src/tools/tool-executor.js';
import { resolveToolsets } from '../../../../src/tools/toolset-registry.js';
import { createLokiToolset, MAX_LIMIT, type LokiToolsetConfig } from '../../../../toolsets/loki/index.js';
import { startLokiDouble, type LokiDouble, type LokiEntry } from '../../../helpers/doubles/loki-double.js';

const TOKEN = 'loki-secret-token-4f2a';
const T0 = Date.parse('2026-03-01T10:00:00Z');
/** An entry `offsetMs` after T0. */
const at = (offsetMs: number, line: string): LokiEntry => ({ ns: BigInt(T0 + offsetMs) * 1_000_000n, line });

let loki: LokiDouble;
beforeAll(async () => {
  loki = await startLokiDouble({ tenants: ['team-a'], authorization: `Bearer ${TOKEN}` });
  const api = { app: 'api', namespace: 'prod' };
  loki.push(
    api,
    [at(1_000, 'GET /health 200'), at(2_000, 'ERROR db pool exhausted'), at(3_000, 'ERROR timeout')],
    'team-a',
  );
  loki.push({ app: 'worker', namespace: 'prod' }, [at(2_500, 'ERROR job failed')], 'team-a');
  loki.push({ app: 'other-tenant', namespace: 'prod' }, [at(2_000, 'ERROR not yours')], 'team-b');
});
afterAll(async () => {
  await loki?.stop();
});

const configured: () => LokiToolsetConfig = () => ({ url: loki.url, tenant: 'team-a', bearerToken: TOKEN });
function executor(cfg: LokiToolsetConfig = configured()): ToolExecutor {
  return new ToolExecutor({ tools: createLokiToolset(cfg).tools });
}
const call = (exec: ToolExecutor, name: string, args: Record<string, unknown>) =>
  exec.execute({ id: 'c', name, arguments: JSON.stringify(args) });
const window = { start: '2026-03-01T09:59:00Z', end: '2026-03-01T10:01:00Z' };

describe('loki_query_range', () => {
  it("returns each stream's labels once, then its lines newest first, the stream with the newest line first", async () => {
    const r = await call(executor(), 'loki_query_range', { query: '{namespace="prod"} |= "ERROR"', ...window });
    expect(r.status).toBe('success');
    expect(r.data).toBe(
      [
        '{app="api", namespace="prod"}',
        '2026-03-01T10:00:03.000000000Z ERROR timeout',
        '2026-03-01T10:00:02.000000000Z ERROR db pool exhausted',
        '{app="worker", namespace="prod"}',
        '2026-03-01T10:00:02.500000000Z ERROR job failed',
      ].join('\n'),
    );
    const sent = loki.requests.at(-1)!;
    expect(sent.headers['x-scope-orgid']).toBe('team-a');
    expect(sent.query).toMatchObject({ limit: '100', direction: 'backward' });
    expect(sent.query.start).toBe(String(BigInt(Date.parse(window.start)) * 1_000_000n));
  });

  it('asks Loki for at most `limit` lines and says when the limit cut the answer', async () => {
    const r = await call(executor(), 'loki_query_range', { query: '{app="api"}', ...window, limit: 2 });
    expect(r.data?.split('\n')).toEqual([
      '{app="api", namespace="prod"}',
      '2026-03-01T10:00:03.000000000Z ERROR timeout',
      '2026-03-01T10:00:02.000000000Z ERROR db pool exhausted',
      '[2 lines shown, the limit: narrow the query or the window for more]',
    ]);
    expect(loki.requests.at(-1)!.query.limit).toBe('2');
    const tooMany = await call(executor(), 'loki_query_range', { query: '{app="api"}', limit: MAX_LIMIT + 1 });
    expect(tooMany.status).toBe('error');
    expect(tooMany.error).toMatch(/limit/);
  });

  it('looks at the hour before end when only end is given, and at `since` after start when only start is', async () => {
    await call(executor(), 'loki_query_range', { query: '{app="api"}', end: '2026-03-01T10:30:00Z' });
    expect(loki.requests.at(-1)!.query.start).toBe(String(BigInt(Date.parse('2026-03-01T09:30:00Z')) * 1_000_000n));
    await call(executor(), 'loki_query_range', { query: '{app="api"}', start: String(T0 / 1000), since: '30m' });
    expect(loki.requests.at(-1)!.query.end).toBe(String(BigInt(T0 + 1_800_000) * 1_000_000n));
  });

  it("says no_data when nothing matched, and gives Loki's reason for bad LogQL", async () => {
    const none = await call(executor(), 'loki_query_range', { query: '{app="api"} |= "panic"', ...window });
    expect(none.status).toBe('no_data');
    const bad = await call(executor(), 'loki_query_range', { query: 'app="api"', ...window });
    expect(bad.status).toBe('error');
    expect(bad.error).toMatch(/HTTP 400 .*parse error at line 1, col 1/);
    const empty = await call(executor(), 'loki_query_range', { query: '{app=~".*"}', ...window });
    expect(empty.error).toMatch(/at least one regexp or equality matcher/);
  });

  it('refuses a time that is neither RFC 3339 nor Unix seconds before asking Loki', async () => {
    const before = loki.requests.length;
    const r = await call(executor(), 'loki_query_range', { query: '{app="api"}', start: 'yesterday' });
    expect(r).toMatchObject({ status: 'error' });
    expect(r.error).toMatch(/start: "yesterday" is neither/);
    expect(loki.requests.length).toBe(before);
  });
});

describe('loki_labels and loki_label_values', () => {
  it('lists label names and the values of one, of the configured tenant only', async () => {
    const names = await call(executor(), 'loki_labels', window);
    expect(names).toMatchObject({ status: 'success', data: 'app\nnamespace' });
    const apps = await call(executor(), 'loki_label_values', { label: 'app', ...window });
    expect(apps).toMatchObject({ status: 'success', data: 'api\nworker' });
    const selected = await call(executor(), 'loki_label_values', { label: 'app', query: '{app="worker"}', ...window });
    expect(selected.data).toBe('worker');
    expect(loki.requests.at(-1)!.path).toBe('/loki/api/v1/label/app/values');
  });

  it('says no_data for a label no stream carries', async () => {
    expect(await call(executor(), 'loki_label_values', { label: 'pod', ...window })).toMatchObject({
      status: 'no_data',
    });
  });
});

describe('the toolset', () => {
  it("tells the model to look around the issue's start and to find labels before guessing", () => {
    expect(createLokiToolset({}).instructions).toMatch(/around the issue's start[\s\S]*loki_labels/);
  });

  it('is disabled with the fix named when no URL is set, and enabled when Loki answers', async () => {
    const off = await resolveToolsets([createLokiToolset({})], {}, {});
    expect(off.statuses[0]).toMatchObject({ state: 'disabled', reason: expect.stringContaining('LOKI_URL') });
    const on = await resolveToolsets([createLokiToolset(configured())], {}, {});
    expect(on.statuses[0]).toMatchObject({ state: 'enabled' });
  });

  it("is disabled with Loki's reason without a tenant, and never shows the token", async () => {
    const noTenant = await resolveToolsets([createLokiToolset({ url: loki.url, bearerToken: TOKEN })], {}, {});
    expect(noTenant.statuses[0]).toMatchObject({ state: 'disabled', reason: expect.stringContaining('no org id') });
    const r = await call(executor({ url: loki.url, bearerToken: TOKEN }), 'loki_labels', window);
    expect(r.error).toMatch(/HTTP 401 to labels: no org id/);
    expect(JSON.stringify([noTenant.statuses, r])).not.toContain(TOKEN);
  });

  it('sends basic auth from the URL and blanks its password in messages', async () => {
    const url = loki.url.replace('http://', 'http://ops:s3cret-pw@');
    const off = await resolveToolsets([createLokiToolset({ url, tenant: 'team-a' })], {}, {});
    expect(off.statuses[0]!.reason).toMatch(/HTTP 401/);
    expect(off.statuses[0]!.reason).not.toContain('s3cret-pw');
    expect(loki.requests.at(-1)!.headers.authorization).toBe(
      `Basic ${Buffer.from('ops:s3cret-pw').toString('base64')}`,
    );
  });
});
