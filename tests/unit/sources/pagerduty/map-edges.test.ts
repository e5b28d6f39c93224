import { describe, expect, it } from 'vitest';
import { MAX_ALERT_TEXT, MAX_ALERTS_SHOWN, toIssue } from '../../../../sources/pagerduty/map.js';
import { IncidentSchema, type PdAlert, type PdIncident } from '../../../../sources/pagerduty/schema.js';
import { severityOf } from '../../../../sources/pagerduty/severity.js';
import { loadFixture } from '../../../fixtures/pagerduty/fixtures.js';

const incident: PdIncident = IncidentSchema.parse(loadFixture('v3-incident-triggered.json').event.data);
const ctx = { instance: 'api.pagerduty.com' };
/** A PagerDuty alert whose details hold Alertmanager ≥ 0.30's firing alerts. */
const amAlert = (
  firing: Array<{ labels: Record<string, string>; annotations?: Record<string, string> }>,
  over: Partial<PdAlert> = {},
): PdAlert => ({
  id: 'PA',
  summary: 'S',
  body: {
    details: {
      firing: firing.map((a) => ({ annotations: {}, ...a })),
      resolved: [],
      num_firing: firing.length,
      num_resolved: 0,
    },
  },
  ...over,
});

describe("labels and annotations from Alertmanager's alerts", () => {
  it('keep only the pairs every alert shares, and the first runbook when they differ', () => {
    const issue = toIssue(
      incident,
      [
        amAlert([
          { labels: { alertname: 'A', team: 'x' }, annotations: { runbook_url: 'https://r/1' } },
          { labels: { alertname: 'A', team: 'x' }, annotations: { runbook_url: 'https://r/2' } },
          { labels: { alertname: 'A', team: 'y' }, annotations: { runbook_url: 'https://r/3' } },
        ]),
      ],
      ctx,
    );
    expect(issue.labels).toMatchObject({ alertname: 'A' });
    expect(issue.labels).not.toHaveProperty('team');
    expect(issue.annotations.runbook_url).toBe('https://r/1');
  });

  it("describe the incident by the first alert's description when they differ", () => {
    const issue = toIssue(
      incident,
      [
        amAlert([
          { labels: {}, annotations: { description: 'first' } },
          { labels: {}, annotations: { description: 'second' } },
        ]),
      ],
      ctx,
    );
    expect(issue.description).toBe('first');
  });
});

describe('an incident with little in it', () => {
  const bare = IncidentSchema.parse({
    id: 'PBARE',
    status: 'acknowledged',
    created_at: '2024-01-01T00:00:00Z',
    title: 'Disk full',
    urgency: null,
    service: { id: 'PS' },
  });

  it('has no empty or missing labels and annotations, and no number', () => {
    const issue = toIssue({ ...bare, urgency: '' }, [], ctx);
    expect(issue.labels).toStrictEqual({});
    expect(issue.annotations).toStrictEqual({ service_id: 'PS' });
    expect(issue.url).toBeNull();
    expect(issue.locator).toEqual({ key: 'PBARE', ref: { incidentId: 'PBARE' } });
  });

  it('keeps raw with nulls for what it lacks', () => {
    expect(toIssue(bare, [{ id: 'PA' }], ctx).raw).toEqual({
      id: 'PBARE',
      number: null,
      title: 'Disk full',
      status: 'acknowledged',
      urgency: null,
      priority: null,
      service: { id: 'PS', summary: null },
      created_at: '2024-01-01T00:00:00Z',
      html_url: null,
      incident_key: null,
      alerts: [{ id: 'PA', summary: null, status: null, severity: null, alert_key: null }],
    });
    expect(toIssue(incident, [], ctx).raw).toMatchObject({
      service: { id: 'PF9KMXH', summary: 'API Service' },
      urgency: 'high',
      number: '2',
      priority: 'P1',
    });
  });

  it('takes no description from an alert summary that only repeats the title', () => {
    expect(toIssue(bare, [{ id: 'PA', summary: 'Disk full', body: { details: { x: 1 } } }], ctx).description).toBe('');
  });
});

describe('alerts shown to the model', () => {
  it('show at most ten, in raw too', () => {
    const many = Array.from({ length: MAX_ALERTS_SHOWN + 1 }, (_, i) => ({ id: `P${i}`, summary: `alert ${i}` }));
    const issue = toIssue(incident, many, ctx);
    expect(issue.untrusted).toHaveLength(MAX_ALERTS_SHOWN);
    expect((issue.raw as { alerts: unknown[] }).alerts).toHaveLength(MAX_ALERTS_SHOWN);
  });

  it('say unknown for a status or severity not given, and leave out a missing summary', () => {
    const [u] = toIssue(incident, [{ id: 'PA', body: { details: { k: 'v' } } }], ctx).untrusted!;
    expect(u).toEqual({ label: 'PagerDuty alert PA (unknown, severity unknown)', text: '{\n "k": "v"\n}' });
  });

  it('keep a text of exactly the limit whole, and cut a longer one saying how much', () => {
    const text = (n: number) =>
      toIssue(incident, [{ id: 'PA', summary: 's'.repeat(n - 6), body: { details: null } }], ctx).untrusted![0]!.text;
    expect(text(MAX_ALERT_TEXT)).toBe(`${'s'.repeat(MAX_ALERT_TEXT - 6)}\n\nnull`);
    expect(text(MAX_ALERT_TEXT + 2)).toBe(`${'s'.repeat(MAX_ALERT_TEXT - 4)}\n\nnu\n[… 2 characters cut]`);
  });
});

describe('severity from the SEV scheme', () => {
  it.each([
    ['SEV2', 'high'],
    ['sev-5', 'info'],
  ] as const)('%s → %s', (priority, want) => {
    expect(severityOf(priority, null)).toBe(want);
  });
});
