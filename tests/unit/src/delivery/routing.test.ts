import { describe, expect, it } from 'vitest';
import { compileRouter, RoutingConfigSchema } from '../../../../src/delivery/routing.js';
import { ConfigError } from '../../../../src/errors.js';

const known = [
  {
    name: 'slack',
    on: true,
    targetError: (t: string) => (t.startsWith('#') || t.startsWith('C') ? null : 'not a channel'),
  },
  { name: 'teams', on: true },
  { name: 'webhook', on: false },
];
const router = (config: unknown) => compileRouter(RoutingConfigSchema.parse(config), known);
const am = (labels: Record<string, string>) => ({ source: 'alertmanager', labels });
const ticket = { source: 'github', labels: { severity: 'critical' }, locator: { key: 'o/r#1', ref: {} } };
const refs = (r: ReturnType<typeof router>, issue: Parameters<ReturnType<typeof router>['route']>[0]) =>
  r.route(issue).map((d) => d.ref);

describe('destination routing', () => {
  const r = router({
    routes: [
      { matchers: ['namespace="prod"', 'severity=~"critical|warning"'], destinations: ['slack:#prod'], continue: true },
      { matchers: ['severity="critical"'], destinations: ['teams'] },
      { matchers: ['team="db"'], destinations: ['slack:#db'] },
      { source: 'github', destinations: ['slack:#tickets'] },
    ],
    default: ['slack'],
  });

  it('takes the first matching route and stops, unless it says continue', () => {
    expect(refs(r, am({ namespace: 'prod', severity: 'critical', team: 'db' }))).toEqual(['slack:#prod', 'teams']);
    expect(refs(r, am({ namespace: 'dev', severity: 'critical', team: 'db' }))).toEqual(['teams']);
    expect(refs(r, am({ namespace: 'prod', severity: 'warning', team: 'db' }))).toEqual(['slack:#prod', 'slack:#db']);
  });

  it('sends what no route took to the default route, only for issues with no ticket of their own', () => {
    expect(refs(r, am({ namespace: 'dev', severity: 'info' }))).toEqual(['slack']);
    expect(refs(r, { source: 'jira', labels: {}, locator: { key: 'OPS-1', ref: {} } })).toEqual([]);
  });

  it('routes a ticket source only by a route naming it', () => {
    expect(refs(r, ticket)).toEqual(['slack:#tickets']);
  });

  it('defaults to every destination that is on when no default is configured', () => {
    expect(refs(router({}), am({}))).toEqual(['slack', 'teams']);
  });

  it('drops a destination that is off, with a warning, and refuses unknown ones and bad targets', () => {
    const w = router({ routes: [{ matchers: [], destinations: ['webhook', 'teams'] }] });
    expect(refs(w, am({}))).toEqual(['teams']);
    expect(w.warnings[0]).toMatch(/destinations\.routes\[0\]\.destinations\[0\].*webhook is off/);
    expect(() => router({ routes: [{ destinations: ['pager'] }] })).toThrow(ConfigError);
    expect(() => router({ routes: [{ destinations: ['slack:general'] }] })).toThrow(
      /routes\[0\]\.destinations\[0\].*not a channel/,
    );
    expect(() => router({ routes: [{ destinations: ['teams:x'] }] })).toThrow(/takes no target/);
    expect(() => router({ routes: [{ matchers: ['severity=="x"'], destinations: ['teams'] }] })).toThrow(
      /routes\[0\]\.matchers\[0\]/,
    );
  });
});
