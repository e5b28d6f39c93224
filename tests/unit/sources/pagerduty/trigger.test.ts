import { describe, expect, it } from 'vitest';
import { InputError } from '../../../../src/errors.js';
import { PagerDutyTriggersSchema } from '../../../../sources/pagerduty/config.js';
import { decideEvent } from '../../../../sources/pagerduty/trigger.js';
import { loadFixture, noteEvent } from '../../../fixtures/pagerduty/fixtures.js';
import { markerLine } from '../../../../sources/pagerduty/marker.js';

const triggered = () => loadFixture('v3-incident-triggered.json');
const withData = (patch: Record<string, unknown>, type = 'incident.triggered') => {
  const e = triggered();
  e.event.event_type = type;
  Object.assign(e.event.data, patch);
  return e;
};
const t = (over: Record<string, unknown> = {}) => PagerDutyTriggersSchema.parse(over);
const reason = (body: unknown, over: Record<string, unknown> = {}) => {
  const d = decideEvent(body, t(over));
  return d.kind === 'ignore' ? d.reason : d.kind;
};

describe('what a V3 event asks for', () => {
  it('incident.triggered of a high-urgency incident is investigated by default', () => {
    expect(decideEvent(triggered(), t())).toMatchObject({
      kind: 'investigate',
      incident: { id: 'PGR0VU2', title: 'A little bump in the road' },
    });
  });

  it('filters by service id, urgency (default high only) and priority name', () => {
    expect(reason(withData({ urgency: 'low' }))).toBe(
      'PGR0VU2: urgency low is not in sources.pagerduty.triggers.urgencies',
    );
    expect(reason(withData({ urgency: 'low' }), { urgencies: ['high', 'low'] })).toBe('investigate');
    expect(reason(triggered(), { services: ['PABCDEF'] })).toBe(
      'PGR0VU2: service PF9KMXH is not in sources.pagerduty.triggers.services',
    );
    expect(reason(triggered(), { services: ['PABCDEF', 'PF9KMXH'] })).toBe('investigate');
    expect(reason(triggered(), { priorities: ['P2', 'P3'] })).toBe(
      'PGR0VU2: priority P1 is not in sources.pagerduty.triggers.priorities',
    );
    expect(reason(triggered(), { priorities: ['p1'] })).toBe('investigate');
    expect(reason(withData({ priority: null }), { priorities: ['P1'] })).toBe(
      'PGR0VU2: priority (none) is not in sources.pagerduty.triggers.priorities',
    );
    expect(reason(withData({ priority: null }))).toBe('investigate');
  });

  it('incident.resolved marks the investigation resolved, whatever the filters', () => {
    expect(
      decideEvent(withData({ status: 'resolved', urgency: 'low' }, 'incident.resolved'), t({ services: ['PABCDEF'] })),
    ).toMatchObject({ kind: 'resolve', incident: { id: 'PGR0VU2' } });
  });

  it("a note, ours or anyone's, starts nothing; ours is recognised by our marker, even in a trimmed note", () => {
    const ours = `${markerLine({ key: 'PGR0VU2', ref: {} }, '0123456789ab')}\n\n### Lestrade — automated root-cause analysis\n…`;
    expect(reason(noteEvent('PGR0VU2', ours.slice(0, 60), true))).toBe(
      'note on PGR0VU2 is our own (it carries our marker)',
    );
    expect(reason(noteEvent('PGR0VU2', '/lestrade investigate please'))).toBe('a note on PGR0VU2 starts nothing');
    expect(reason(loadFixture('v3-incident-annotated.json'))).toBe('a note on PGR0VU2 starts nothing');
  });

  it('every other event is ignored with its name', () => {
    for (const type of ['incident.acknowledged', 'incident.reopened', 'incident.priority_updated', 'service.updated']) {
      expect(reason(withData({}, type))).toBe(`event ${type} starts nothing`);
    }
  });

  it('a malformed delivery is an InputError naming the field', () => {
    expect(() => decideEvent({ event: {} }, t())).toThrow(InputError);
    expect(() => decideEvent({ event: {} }, t())).toThrow(/^event\.event_type/);
    const e = triggered();
    delete e.event.data.id;
    expect(() => decideEvent(e, t())).toThrow(/^event\.data\.id/);
    expect(() => decideEvent([], t())).toThrow(InputError);
  });
});
