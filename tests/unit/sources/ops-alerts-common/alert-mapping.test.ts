import { describe, expect, it } from 'vitest';
import {
  fieldsFromRest,
  fieldsFromWebhook,
  issueFromAlert,
  type AlertFields,
} from '../../../../sources/ops-alerts-common/alert-fields.js';
import { ActionPayloadSchema } from '../../../../sources/ops-alerts-common/webhook-payload.js';
import { parseLosslessJson } from '../../../../sources/ops-alerts-common/lossless-json.js';
import { alertUrl as jsmAlertUrl, issueFromAction as jsmIssueFromAction } from '../../../../sources/jsm-ops/map.js';
import { issueFromAction as ogIssueFromAction } from '../../../../sources/opsgenie/map.js';
import { jsmOpsFixtureText } from '../../../fixtures/jsm-ops/fixtures.js';
import { opsgenieFixtureText } from '../../../fixtures/opsgenie/fixtures.js';

const NOW = () => new Date('2024-06-10T15:00:00.000Z');
const ctx = { source: 'opsgenie', sourceInstance: 'api.opsgenie.com', url: null, status: 'open' as const };
const fields = (over: Partial<AlertFields> = {}): AlertFields => ({
  id: 'a-1',
  message: 'm',
  description: 'd',
  details: {},
  tags: [],
  createdAt: '2024-06-10T14:00:00.000Z',
  ...over,
});

describe('an alert with only an id', () => {
  it('from a webhook: empty texts, no tags, created now', () => {
    const f = fieldsFromWebhook({ alertId: 'a-1' }, NOW);
    expect(f).toEqual({
      id: 'a-1',
      tinyId: undefined,
      alias: undefined,
      message: '',
      description: '',
      details: {},
      tags: [],
      priority: undefined,
      entity: undefined,
      alertSource: undefined,
      createdAt: '2024-06-10T15:00:00.000Z',
      updatedAt: undefined,
    });
  });

  it('from a REST API: the same, and a creation time it cannot read taken as now', () => {
    expect(fieldsFromRest({ id: 'a-1' }, undefined, NOW)).toMatchObject({
      message: '',
      description: '',
      tags: [],
      details: {},
      createdAt: '2024-06-10T15:00:00.000Z',
    });
    expect(fieldsFromRest({ id: 'a-1', createdAt: 'soon' }, null, NOW).createdAt).toBe('2024-06-10T15:00:00.000Z');
  });

  it('is titled by its tiny id, else its id, and hands the model nothing untrusted', () => {
    expect(issueFromAlert(fields({ message: '', tinyId: '42' }), ctx).title).toBe('alert 42');
    const issue = issueFromAlert(fields({ message: '', description: ' \n', details: {} }), ctx);
    expect(issue.title).toBe('alert a-1');
    expect(issue.untrusted).toEqual([]);
  });

  it('keeps raw fields it lacks as null', () => {
    expect(issueFromAlert(fields(), ctx).raw).toEqual({
      id: 'a-1',
      tinyId: null,
      alias: null,
      priority: null,
      status: null,
      createdAt: '2024-06-10T14:00:00.000Z',
      updatedAt: null,
    });
    expect(issueFromAlert(fields({ tinyId: '7', alias: 'x', priority: 'P2', status: 'open' }), ctx).raw).toMatchObject({
      tinyId: '7',
      alias: 'x',
      priority: 'P2',
      status: 'open',
    });
  });
});

describe('untrusted alert text', () => {
  it('lists the details one per line, leaving out empty parts', () => {
    const issue = issueFromAlert(
      fields({ message: 'disk full', description: '', details: { host: 'db-1', disk: '/var' } }),
      ctx,
    );
    expect(issue.untrusted).toEqual([
      { label: 'alert message', text: 'disk full' },
      { label: 'alert details', text: 'host: db-1\ndisk: /var' },
    ]);
  });

  it('keeps a text of exactly 4,000 characters whole, and cuts a longer one saying how much', () => {
    const at = (n: number) =>
      issueFromAlert(fields({ message: 'm'.repeat(n), description: '' }), ctx).untrusted![0]!.text;
    expect(at(4_000)).toBe('m'.repeat(4_000));
    expect(at(4_003)).toBe(`${'m'.repeat(4_000)}\n[… 3 characters cut]`);
  });
});

describe('OpsGenie and JSM Operations actions', () => {
  it('keep the action and the integration in raw, null when unnamed', () => {
    const og = ActionPayloadSchema.parse(parseLosslessJson(opsgenieFixtureText('close')));
    expect(ogIssueFromAction(og, { apiUrl: 'https://api.opsgenie.com' }, 'resolved').raw).toMatchObject({
      action: 'Close',
      integrationName: 'Lestrade',
    });
    expect(
      ogIssueFromAction({ ...og, integrationName: undefined }, { apiUrl: 'https://api.opsgenie.com' }, 'resolved').raw,
    ).toMatchObject({ integrationName: null });
    const jsm = ActionPayloadSchema.parse(parseLosslessJson(jsmOpsFixtureText('create')));
    const jctx = { site: 'https://acme.atlassian.net', instance: 'acme.atlassian.net' };
    expect(jsmIssueFromAction(jsm, jctx, 'open').raw).toMatchObject({
      action: 'Create',
      integrationName: jsm.integrationName,
    });
    expect(jsmIssueFromAction({ ...jsm, integrationName: null }, jctx, 'open').raw).toMatchObject({
      integrationName: null,
    });
  });

  it('link a JSM alert only when the site is known and the id can be written in a URL', () => {
    expect(jsmAlertUrl('https://acme.atlassian.net', 'a/1')).toBe('https://acme.atlassian.net/jira/ops/alerts/a%2F1');
    expect(jsmAlertUrl(null, 'a-1')).toBeNull();
    expect(jsmAlertUrl('https://acme.atlassian.net', 'a\uD800')).toBeNull();
  });
});
