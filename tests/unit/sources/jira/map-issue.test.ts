import { describe, expect, it } from 'vitest';
import { IssueSchema } from '../../../../src/issue.js';
import { commandIdentity, issueFromBean, severityOf } from '../../../../sources/jira/map-issue.js';
import { IssueBeanSchema } from '../../../../sources/jira/schema.js';
import { BOT_ACCOUNT_ID, jiraFixture } from '../../../fixtures/jira/fixtures.js';

const CLOUD = 'https://acme.atlassian.net';
const DC = 'https://jira.example.com/jira';
const bean = (name: 'cloud-api-issue' | 'dc-api-issue') => IssueBeanSchema.parse(jiraFixture(name));

describe('Jira issue → Issue', () => {
  it('maps a Cloud API issue: ADF description as plain text, identity and locator from the key', () => {
    const issue = issueFromBean(bean('cloud-api-issue'), { site: CLOUD, self: { accountId: BOT_ACCOUNT_ID } });
    expect(IssueSchema.parse(issue)).toBeTruthy();
    expect(issue).toMatchObject({
      identity: 'OPS-7',
      fingerprint: 'OPS-7',
      source: 'jira',
      sourceInstance: 'acme.atlassian.net',
      title: 'Checkout API returns 502 for 5% of requests',
      url: `${CLOUD}/browse/OPS-7`,
      severity: 'high',
      status: 'open',
      startedAt: '2025-03-04T09:12:44.123Z',
      locator: { key: 'OPS-7', ref: { issueKey: 'OPS-7', id: '10042' } },
      labels: {
        checkout: 'true',
        prod: 'true',
        project: 'OPS',
        issuetype: 'Incident',
        status: 'Open',
        priority: 'High',
      },
      annotations: {
        components: 'checkout-api, payments',
        reporter: 'Alice Oncall',
        created: '2025-03-04T09:12:44.123Z',
      },
    });
    expect(issue.description).toContain('Since 09:00 UTC the checkout-api returns HTTP 502');
    expect(issue.description).toContain('- see dashboard (https://grafana.acme.example/d/checkout)');
    expect(issue.description).not.toContain('"type"');
  });

  it('keeps only comments not written by Lestrade as untrusted text, labelled with author and time', () => {
    const issue = issueFromBean(bean('cloud-api-issue'), { site: CLOUD, self: { accountId: BOT_ACCOUNT_ID } });
    expect(issue.untrusted).toEqual([
      {
        label: 'comment by Alice Oncall at 2025-03-04T09:45:00.000Z',
        text: 'Rolled back checkout-api to 2.14.1 at 09:40, errors continue.',
      },
    ]);
  });

  it('recognises our comment by its marker even without knowing our account', () => {
    const issue = issueFromBean(bean('cloud-api-issue'), { site: CLOUD });
    expect(issue.untrusted?.map((u) => u.text)).not.toContainEqual(expect.stringContaining('lestrade:rca:'));
  });

  it('bounds the untrusted comments: the last five, each cut at 2,000 characters', () => {
    const b = bean('cloud-api-issue');
    b.fields.comment = {
      comments: Array.from({ length: 8 }, (_, i) => ({
        id: String(20000 + i),
        author: { displayName: `u${i}` },
        body: `${i}:${'x'.repeat(3000)}`,
      })),
    };
    const issue = issueFromBean(b, { site: CLOUD });
    expect(issue.untrusted?.map((u) => u.label.split(' ')[2])).toEqual(['u3', 'u4', 'u5', 'u6', 'u7']);
    expect(issue.untrusted?.every((u) => u.text.length === 2001 && u.text.endsWith('…'))).toBe(true);
  });

  it('maps a Data Center issue: wiki-markup description kept as written, context path in the URL', () => {
    const issue = issueFromBean(bean('dc-api-issue'), { site: DC, self: { name: 'lestrade', key: 'JIRAUSER22745' } });
    expect(issue.description.startsWith('Since 09:00 UTC the *checkout-api* returns HTTP 502')).toBe(true);
    expect(issue).toMatchObject({
      url: `${DC}/browse/OPS-7`,
      sourceInstance: 'jira.example.com',
      severity: 'critical',
      identity: 'OPS-7',
    });
    expect(issue.untrusted).toEqual([
      {
        label: 'comment by Alice Oncall at 2025-03-04T09:45:00.000Z',
        text: 'Rolled back to *2.14.1*, errors continue.',
      },
    ]);
  });

  it('a command comment re-investigates under its own identity but the same fingerprint and locator', () => {
    const issue = issueFromBean(
      bean('cloud-api-issue'),
      { site: CLOUD },
      { identity: commandIdentity('OPS-7', '10210') },
    );
    expect(issue.identity).toBe('OPS-7/comment/10210');
    expect(issue.fingerprint).toBe('OPS-7');
    expect(issue.locator?.key).toBe('OPS-7');
  });

  it('the locator carries the project and its type, so the write-back knows a service desk without asking', () => {
    expect(issueFromBean(bean('cloud-api-issue'), { site: CLOUD }).locator).toEqual({
      key: 'OPS-7',
      ref: { issueKey: 'OPS-7', id: '10042', project: 'OPS', projectType: 'service_desk' },
    });
    const dc = bean('dc-api-issue');
    expect(issueFromBean(dc, { site: DC }).locator?.ref).toMatchObject({ projectType: 'service_desk' });
    const bare = bean('cloud-api-issue');
    bare.fields.project = { key: 'OPS' };
    expect(issueFromBean(bare, { site: CLOUD }).locator?.ref).toEqual({
      issueKey: 'OPS-7',
      id: '10042',
      project: 'OPS',
    });
    bare.fields.project = null;
    expect(issueFromBean(bare, { site: CLOUD }).locator?.ref).toEqual({ issueKey: 'OPS-7', id: '10042' });
  });

  it('the fixed label keys win over labels of the same name; a label named __proto__ is just a label', () => {
    const b = bean('cloud-api-issue');
    b.fields.labels = ['project', '__proto__', 'constructor'];
    const issue = issueFromBean(b, { site: CLOUD });
    expect(issue.labels.project).toBe('OPS');
    expect(Object.getPrototypeOf(issue.labels)).toBe(Object.prototype);
    expect(Object.keys(issue.labels)).toEqual(expect.arrayContaining(['__proto__', 'constructor']));
  });

  it('raw keeps the issue trimmed: no description or comments', () => {
    const raw = issueFromBean(bean('cloud-api-issue'), { site: CLOUD }).raw as { fields: Record<string, unknown> };
    expect(raw.fields).not.toHaveProperty('description');
    expect(raw.fields).not.toHaveProperty('comment');
    expect(JSON.stringify(raw).length).toBeLessThan(600);
  });
});

describe('severity from priority', () => {
  it.each([
    ['Highest', 'critical'],
    ['High', 'high'],
    ['Medium', 'warning'],
    ['Low', 'info'],
    ['Lowest', 'info'],
    ['highest', 'critical'],
    ['Blocker', 'critical'],
    ['Major', 'high'],
    ['Trivial', 'info'],
    ['P1 - urgent', 'unknown'],
    ['toString', 'unknown'],
    ['__proto__', 'unknown'],
    ['constructor', 'unknown'],
    [undefined, 'unknown'],
    [null, 'unknown'],
  ] as const)('%s → %s', (priority, severity) => {
    expect(severityOf(priority)).toBe(severity);
  });
});
