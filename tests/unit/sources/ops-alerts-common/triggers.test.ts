import { describe, expect, it } from 'vitest';
import {
  AlertTriggersSchema,
  decideAction,
  triggerWarnings,
  type AlertTriggers,
} from '../../../../sources/ops-alerts-common/triggers.js';
import { ActionPayloadSchema, type ActionPayload } from '../../../../sources/ops-alerts-common/webhook-payload.js';
import { parseLosslessJson } from '../../../../sources/ops-alerts-common/lossless-json.js';
import { opsgenieFixtureText, type OpsgenieFixture } from '../../../fixtures/opsgenie/fixtures.js';
import { jsmOpsFixtureText } from '../../../fixtures/jsm-ops/fixtures.js';

const payload = (name: OpsgenieFixture, alert: Record<string, unknown> = {}): ActionPayload => {
  const p = ActionPayloadSchema.parse(parseLosslessJson(opsgenieFixtureText(name)));
  return { ...p, alert: { ...p.alert, ...alert } };
};
const triggers = (t: Partial<AlertTriggers> = {}) => AlertTriggersSchema.parse(t);
const self = { noteUser: 'Lestrade' };

describe('what an action asks for', () => {
  it('Create investigates when no filter is set (and start-up says so); Close resolves; others start nothing', () => {
    expect(decideAction(payload('create'), triggers(), self)).toEqual({ kind: 'investigate' });
    expect(triggerWarnings(triggers(), 'sources.opsgenie')).toEqual([expect.stringContaining('every created alert')]);
    expect(triggerWarnings(triggers({ priorities: ['P1'] }), 'sources.opsgenie')).toEqual([]);
    expect(decideAction(payload('close'), triggers({ priorities: ['P5'] }), self)).toEqual({ kind: 'resolve' });
    expect(decideAction(payload('acknowledge'), triggers(), self)).toEqual({
      kind: 'ignored',
      reason: 'action Acknowledge on alert 1042 starts nothing',
    });
  });

  it('priorities, tags (case-insensitive) and teams (id or responder name) filter created alerts; each set list must match', () => {
    const create = payload('create');
    expect(decideAction(create, triggers({ priorities: ['P1', 'P2'] }), self).kind).toBe('investigate');
    expect(decideAction(create, triggers({ priorities: ['P2'] }), self)).toEqual({
      kind: 'ignored',
      reason: 'alert 1042: priority P1 is not in triggers.priorities',
    });
    expect(decideAction(create, triggers({ tags: ['PAYMENTS'] }), self).kind).toBe('investigate');
    expect(decideAction(create, triggers({ tags: ['search'] }), self)).toEqual({
      kind: 'ignored',
      reason: 'alert 1042: none of triggers.tags is set',
    });
    expect(decideAction(create, triggers({ teams: ['payments'] }), self).kind).toBe('investigate');
    expect(decideAction(create, triggers({ teams: ['d1a9c2f0-5b7e-4a36-9c1e-2f8b7a6d5e41'] }), self).kind).toBe(
      'investigate',
    );
    expect(decideAction(create, triggers({ teams: ['Search'] }), self)).toEqual({
      kind: 'ignored',
      reason: 'alert 1042: none of triggers.teams is on it',
    });
    expect(
      decideAction(create, triggers({ priorities: ['P1'], tags: ['payments'], teams: ['Search'] }), self).kind,
    ).toBe('ignored');
    expect(decideAction(payload('create', { priority: null }), triggers({ priorities: ['P3'] }), self).kind).toBe(
      'ignored',
    );
  });

  it("our own note echoed back (marker, or our user) is recognised; a person's note starts nothing", () => {
    expect(decideAction(payload('addnote-own'), triggers(), self)).toEqual({
      kind: 'ignored',
      reason: 'note on alert 1042 is our own (it carries our marker)',
    });
    expect(decideAction(payload('addnote-own', { note: 'edited away' }), triggers(), self)).toEqual({
      kind: 'ignored',
      reason: 'note on alert 1042 is our own (by Lestrade)',
    });
    expect(decideAction(payload('addnote-human'), triggers(), self)).toEqual({
      kind: 'ignored',
      reason: 'AddNote on alert 1042 starts nothing',
    });
    const jsm = ActionPayloadSchema.parse(parseLosslessJson(jsmOpsFixtureText('addnote-own')));
    expect(
      decideAction({ ...jsm, alert: { ...jsm.alert, note: 'no marker' } }, triggers(), {
        noteUser: 'LESTRADE@example.com',
      }).kind,
    ).toBe('ignored');
    expect(
      decideAction({ ...jsm, alert: { ...jsm.alert, note: 'no marker' } }, triggers(), {
        noteUser: 'someone@example.com',
      }),
    ).toEqual({ kind: 'ignored', reason: 'AddNote on alert 77 starts nothing' });
  });

  it('the triggers schema refuses unknown keys and priorities', () => {
    expect(AlertTriggersSchema.safeParse({ priorities: ['P6'] }).success).toBe(false);
    expect(AlertTriggersSchema.safeParse({ tag: ['x'] }).success).toBe(false);
  });
});
