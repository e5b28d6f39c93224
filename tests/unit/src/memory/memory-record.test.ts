import { describe, expect, it } from 'vitest';
import { DEFAULT_IDENTIFYING_LABELS } from '../../../../src/config/memory-schema.js';
import { identifyingLabelsOf, memoryQueryOf } from '../../../../src/memory/memory-record.js';
import { anAlert, anIssue } from '../../../helpers/issue.js';

describe('identifyingLabelsOf', () => {
  it('keeps only the named labels with a value, and derives workload from pod', () => {
    const labels = {
      alertname: 'X',
      namespace: 'pay',
      pod: 'checkout-7d9f8b6c4-x2kqp',
      instance: '10.0.0.1:80',
      service: ' ',
      cluster: 'eu',
    };
    expect(identifyingLabelsOf(labels)).toEqual({ namespace: 'pay', workload: 'checkout', cluster: 'eu' });
    expect(identifyingLabelsOf(labels, ['namespace', 'instance'])).toEqual({
      namespace: 'pay',
      instance: '10.0.0.1:80',
    });
  });

  it('keeps a workload label the issue has, and derives none when workload is not named', () => {
    expect(identifyingLabelsOf({ workload: 'w', pod: 'checkout-7d9f8b6c4-x2kqp' })).toEqual({ workload: 'w' });
    expect(identifyingLabelsOf({ pod: 'checkout-7d9f8b6c4-x2kqp' }, ['namespace'])).toEqual({});
  });

  it('never reads a label from Object.prototype', () => {
    expect(identifyingLabelsOf({}, ['constructor', 'toString'])).toEqual({});
    expect(DEFAULT_IDENTIFYING_LABELS).toContain('namespace');
  });
});

describe('memoryQueryOf', () => {
  it('takes source, fingerprint, alert name, identifying labels, title and group key of an issue', () => {
    const issue = anAlert('a1', {
      fingerprint: 'fp1',
      title: 'HighErrorRate: checkout',
      labels: { alertname: 'HighErrorRate', service: 'checkout', instance: 'i', severity: 'critical' },
      group: { key: 'g', title: 'G', quietSeconds: 1, maxWaitSeconds: 2 },
    });
    expect(memoryQueryOf(issue)).toEqual({
      source: 'alertmanager',
      fingerprint: 'fp1',
      alertName: 'HighErrorRate',
      labels: { service: 'checkout' },
      title: 'HighErrorRate: checkout',
      groupKey: 'g',
    });
  });

  it('has no alert name or group key for a ticket', () => {
    const issue = anIssue('OPS-1', { labels: { project: 'OPS', alertname: ' ' }, title: 'VPN down' });
    expect(memoryQueryOf(issue)).toEqual({
      source: 'tickets',
      fingerprint: 'OPS-1',
      labels: { project: 'OPS' },
      title: 'VPN down',
    });
  });
});
