import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../src/errors.js';
import { IntakePolicy, DEFAULT_PRIORITIES, DEFAULT_SKIP_RULES } from '../../../../src/intake-policy/intake-policy.js';
import { matches, parseMatcher } from '../../../../src/intake-policy/label-matcher.js';
import type { Issue } from '../../../../src/issue.js';
import { composeGroupIssue } from '../../../../src/issue-group.js';
import { parseRedisUrl } from '../../../../src/redis/redis-url.js';
import { redactUrl } from '../../../../src/redact.js';
import { configSecrets } from '../../../../src/config/secrets.js';
import { loadConfig } from '../../../../src/config/load-config.js';
import { sources } from '../../../../sources/index.js';
import { WebhookPayloadSchema } from '../../../../sources/alertmanager/schema.js';
import { amFixture } from '../../../helpers/fixtures.js';
import { anAlert } from '../../../helpers/issue.js';

const issue = (fp: string, labels: Record<string, string>, extra: Partial<Issue> = {}): Issue =>
  anAlert(`${fp}@t`, {
    fingerprint: fp,
    title: `t ${fp}`,
    description: 'same',
    severity: 'warning',
    labels,
    annotations: { summary: `s ${fp}`, runbook_url: 'r' },
    startedAt: `2026-11-30T08:00:0${fp.length % 10}.000Z`,
    ...extra,
  });

describe('label matchers', () => {
  it('match as Alertmanager does: anchored regexes, a missing label is the empty string, own keys only', () => {
    expect(matches(parseMatcher('alertname=~"Watchdog|InfoInhibitor"', 'k'), { alertname: 'Watchdog' })).toBe(true);
    expect(matches(parseMatcher('alertname=~"Watchdog|InfoInhibitor"', 'k'), { alertname: 'NotWatchdog' })).toBe(false);
    expect(matches(parseMatcher('severity="info"', 'k'), { severity: 'info' })).toBe(true);
    expect(matches(parseMatcher('severity!=info', 'k'), {})).toBe(true);
    expect(matches(parseMatcher('team=""', 'k'), {})).toBe(true);
    expect(matches(parseMatcher('toString!~".+"', 'k'), {})).toBe(true);
    expect(matches(parseMatcher('a="x\\"y"', 'k'), { a: 'x"y' })).toBe(true);
  });

  it('refuse what is not a matcher, naming the config key', () => {
    expect(() => parseMatcher('severity', 'intake.skip.0.matchers.0')).toThrow(ConfigError);
    expect(() => parseMatcher('severity', 'intake.skip.0.matchers.0')).toThrow(/intake\.skip\.0\.matchers\.0/);
    expect(() => parseMatcher('a=~"("', 'k')).toThrow(/bad regular expression/);
  });
});

describe('intake policy', () => {
  const policy = new IntakePolicy({
    priorities: DEFAULT_PRIORITIES,
    prioritiesBySource: { jira: { warning: 1 } },
    skip: [...DEFAULT_SKIP_RULES, { name: 'gh-only', matchers: ['x="1"'], sources: ['github'] }],
    skipResolvedWhileQueued: true,
  });
  it("names the first rule that matches, honouring a rule's sources", () => {
    expect(policy.skipRule(issue('a', { alertname: 'Watchdog' }))).toBe('heartbeat');
    expect(policy.skipRule(issue('a', { alertname: 'X', severity: 'info' }))).toBe('severity-info');
    expect(policy.skipRule(issue('a', { alertname: 'X', x: '1' }))).toBeNull();
    expect(policy.skipRule({ ...issue('a', { x: '1' }), source: 'github' })).toBe('gh-only');
  });
  it('gives each severity its priority, a source its own where configured', () => {
    expect(policy.priority({ source: 'alertmanager', severity: 'critical' })).toBe(1);
    expect(policy.priority({ source: 'alertmanager', severity: 'warning' })).toBe(3);
    expect(policy.priority({ source: 'jira', severity: 'warning' })).toBe(1);
    expect(policy.priority({ source: 'jira', severity: 'info' })).toBe(5);
  });
});

describe("a group's issue", () => {
  it('lists shared labels once and what differs per alert, with the most severe severity', () => {
    const g = composeGroupIssue(
      [
        issue('a', { alertname: 'Down', namespace: 'prod', pod: 'p1' }),
        issue('bb', { alertname: 'Down', namespace: 'prod', pod: 'p2', zone: 'z' }, { severity: 'critical' }),
      ],
      new Set(['a']),
    );
    expect(g.labels).toEqual({ alertname: 'Down', namespace: 'prod' });
    expect(g.annotations).toEqual({ runbook_url: 'r' });
    expect(g.severity).toBe('critical');
    expect(g.status).toBe('open');
    expect(g.description).toBe('same');
    expect(g.alerts).toEqual([
      expect.objectContaining({
        fingerprint: 'a',
        status: 'resolved',
        labels: { pod: 'p1' },
        annotations: { summary: 's a' },
      }),
      expect.objectContaining({ fingerprint: 'bb', status: 'open', labels: { pod: 'p2', zone: 'z' } }),
    ]);
  });
});

describe('REDIS_URL', () => {
  it("names one server or a cluster's nodes, with ACL credentials and TLS", () => {
    expect(parseRedisUrl('rediss://u:p@h:6380/0')).toEqual({ kind: 'single', url: 'rediss://u:p@h:6380/0', tls: true });
    expect(parseRedisUrl('rediss+cluster://app:s%40cret@10.0.0.1:7000,[::1]:7001,node3')).toEqual({
      kind: 'cluster',
      tls: true,
      username: 'app',
      password: 's@cret',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '::1', port: 7001 },
        { host: 'node3', port: 6379 },
      ],
    });
    expect(() => parseRedisUrl('redis+cluster://')).toThrow(/at least one host/);
    expect(() => parseRedisUrl('memcached://x')).toThrow(/REDIS_URL/);
  });
  it("keeps a cluster URL's password out of messages and logs", () => {
    const url = 'redis+cluster://app:hunter2-pw@a:1,b:2';
    expect(redactUrl(url)).toBe('redis+cluster://app:***@a:1,b:2');
    const config = loadConfig({ REDIS_URL: url }, undefined, sources);
    expect(configSecrets(config)).toContain('hunter2-pw');
    expect(() => loadConfig({ REDIS_URL: 'http://x' }, undefined, sources)).toThrow(/redis\.url/);
  });
});

describe('storm configuration', () => {
  it('binds LESTRADE_AM_INVESTIGATE_BY and the budget variables, env winning, errors naming the key', () => {
    const c = loadConfig(
      {
        LESTRADE_AM_INVESTIGATE_BY: 'group',
        LESTRADE_MAX_INVESTIGATIONS_PER_HOUR: '30',
        LESTRADE_MAX_TOKENS_PER_DAY: '1000000',
      },
      undefined,
      sources,
    );
    expect(c.sources.alertmanager).toMatchObject({ investigateBy: 'group', groupQuietSeconds: 120 });
    expect(c.budgets).toMatchObject({
      investigationsPerHour: 30,
      tokensPerDay: 1_000_000,
      criticalBypassesHourly: false,
    });
    expect(c.intake.skip.map((r) => r.name)).toEqual(['severity-info', 'heartbeat']);
    expect(() => loadConfig({ LESTRADE_AM_INVESTIGATE_BY: 'incident' }, undefined, sources)).toThrow(
      /sources\.alertmanager\.investigateBy/,
    );
  });
});

describe('Alertmanager payload', () => {
  it('takes truncatedAlerts as the uint64 it is, past 2^53 too (fuzz counterexample, seed -1050170565)', () => {
    const body = amFixture('group-next').body;
    for (const n of [0, 9007199254740992, 1e19])
      expect(WebhookPayloadSchema.safeParse({ ...body, truncatedAlerts: n }).success, String(n)).toBe(true);
    for (const n of [-1, 1.5])
      expect(WebhookPayloadSchema.safeParse({ ...body, truncatedAlerts: n }).success, String(n)).toBe(false);
  });
});
