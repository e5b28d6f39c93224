import { describe, expect, it } from 'vitest';
import { issueInstance, pickInstance, type InstanceScoping } from '../../../../src/tools/pick-instance.js';

const scoping: InstanceScoping = { label: 'cluster', crossInstance: false, configKey: 'toolsets.prometheus' };
const cross: InstanceScoping = { ...scoping, crossInstance: true };
const labels = (l: Record<string, string>) => ({ labels: l });
const AB = ['a', 'b'];

describe("the issue's own instance", () => {
  it('is the one its label names, else default, else (with no label) the only one', () => {
    expect(issueInstance(AB, scoping, labels({ cluster: 'b' }))).toBe('b');
    expect(issueInstance(['a', 'default'], scoping, labels({ cluster: 'x' }))).toBe('default');
    expect(issueInstance(['a', 'default'], scoping, labels({}))).toBe('default');
    expect(issueInstance(['a', 'default'], scoping, labels({ cluster: 'a' }))).toBe('a');
    expect(issueInstance(['only'], scoping, labels({}))).toBe('only');
    expect(issueInstance(['only'], scoping, undefined)).toBe('only');
    // A label naming another cluster does not fall to the only instance: that would be another cluster's data.
    expect(issueInstance(['only'], scoping, labels({ cluster: 'x' }))).toBeUndefined();
    expect(issueInstance(AB, scoping, labels({}))).toBeUndefined();
  });

  it('reads the configured label, not cluster', () => {
    const byRegion = { ...scoping, label: 'region' };
    expect(issueInstance(AB, byRegion, labels({ region: 'b', cluster: 'a' }))).toBe('b');
  });
});

describe('where a call goes', () => {
  it("goes to the issue's own instance when none is named, or when it is the one named", () => {
    expect(pickInstance(undefined, AB, scoping, labels({ cluster: 'a' }))).toEqual({ instance: 'a' });
    expect(pickInstance('a', AB, scoping, labels({ cluster: 'a' }))).toEqual({ instance: 'a' });
  });

  it("refuses another cluster's instance, naming the key that allows it; crossInstance lets it through", () => {
    const refused = pickInstance('b', AB, scoping, labels({ cluster: 'a' }));
    expect(refused).toEqual({
      refused:
        "instance b is not this issue's (the issue is cluster=a, instance a); an investigation queries only its own " +
        'instance unless toolsets.prometheus.crossInstance is true',
    });
    expect(pickInstance('b', AB, cross, labels({ cluster: 'a' }))).toEqual({ instance: 'b' });
  });

  it('lets the model choose when the issue has no label and no instance is the default', () => {
    expect(pickInstance('b', AB, scoping, labels({}))).toEqual({ instance: 'b' });
    expect(pickInstance(undefined, AB, scoping, labels({}))).toEqual({
      refused: "name the instance: one of a, b (the issue's cluster label names none)",
    });
  });

  it('refuses every call for an issue whose label names no instance and there is no default', () => {
    const x = labels({ cluster: 'x' });
    expect(pickInstance(undefined, AB, scoping, x)).toMatchObject({
      refused: expect.stringContaining('the issue is cluster=x, which names no instance (a, b)'),
    });
    expect(pickInstance('a', AB, scoping, x)).toMatchObject({ refused: expect.stringContaining('cluster=x') });
    expect(pickInstance('a', AB, cross, x)).toEqual({ instance: 'a' });
    expect(pickInstance(undefined, AB, cross, x)).toMatchObject({
      refused: expect.stringMatching(/^name the instance/),
    });
  });

  it('keeps an issue with no label to the default instance when there is one', () => {
    expect(pickInstance(undefined, ['default', 'b'], scoping, labels({}))).toEqual({ instance: 'default' });
    expect(pickInstance('b', ['default', 'b'], scoping, labels({}))).toMatchObject({
      refused: expect.stringContaining('the issue is unlabelled, instance default'),
    });
  });

  it('refuses a name that is no instance, whatever crossInstance says', () => {
    expect(pickInstance('c', AB, cross, labels({ cluster: 'a' }))).toEqual({ refused: 'no instance c: one of a, b' });
  });
});
