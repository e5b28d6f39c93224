import { z } from 'zod';
import { carriesAnyMarker } from './note-text.js';
import type { ActionPayload } from './webhook-payload.js';

export const PRIORITIES = ['P1', 'P2', 'P3', 'P4', 'P5'] as const;

/**
 * Which created alerts start an investigation. Each list that is set must match (any of its
 * entries); an empty list matches everything.
 */
export const AlertTriggersSchema = z.strictObject({
  /** The alert carries at least one of these tags (case-insensitive). */
  tags: z.array(z.string().min(1)).default([]),
  priorities: z.array(z.enum(PRIORITIES)).default([]),
  /** A team id, or a team responder's name (case-insensitive). */
  teams: z.array(z.string().min(1)).default([]),
});
export type AlertTriggers = z.infer<typeof AlertTriggersSchema>;

export type ActionDecision = { kind: 'investigate' } | { kind: 'resolve' } | { kind: 'ignored'; reason: string };

export interface Self {
  /** The `user` our notes are written as: an AddNote by it is our own echo. */
  noteUser: string;
}

const same = (a: string, b: string) => a.localeCompare(b, undefined, { sensitivity: 'accent' }) === 0;

/** What an action payload asks of Lestrade, from the payload alone (pure). */
export function decideAction(p: ActionPayload, t: AlertTriggers, self: Self): ActionDecision {
  const a = p.alert;
  const name = `alert ${a.tinyId ?? a.alertId}`;
  if (p.action === 'Create') return triggerFilter(p, t) ?? { kind: 'investigate' };
  if (p.action === 'Close') return { kind: 'resolve' };
  if (p.action === 'AddNote') {
    if (carriesAnyMarker(a.note ?? ''))
      return { kind: 'ignored', reason: `note on ${name} is our own (it carries our marker)` };
    if (a.username && same(a.username, self.noteUser))
      return { kind: 'ignored', reason: `note on ${name} is our own (by ${self.noteUser})` };
    return { kind: 'ignored', reason: `AddNote on ${name} starts nothing` };
  }
  return { kind: 'ignored', reason: `action ${p.action} on ${name} starts nothing` };
}

/** Why a created alert does not pass the configured filters, or null when it does. */
function triggerFilter(p: ActionPayload, t: AlertTriggers): ActionDecision | null {
  const a = p.alert;
  const name = `alert ${a.tinyId ?? a.alertId}`;
  if (t.priorities.length && !t.priorities.some((x) => same(x, a.priority ?? ''))) {
    return { kind: 'ignored', reason: `${name}: priority ${a.priority ?? '(none)'} is not in triggers.priorities` };
  }
  const tags = a.tags ?? [];
  if (t.tags.length && !t.tags.some((x) => tags.some((tag) => same(x, tag)))) {
    return { kind: 'ignored', reason: `${name}: none of triggers.tags is set` };
  }
  if (t.teams.length && !t.teams.some((x) => teamsOf(p).some((team) => same(x, team)))) {
    return { kind: 'ignored', reason: `${name}: none of triggers.teams is on it` };
  }
  return null;
}

/** Team ids (`teams`) and each team responder's id and name. */
function teamsOf(p: ActionPayload): string[] {
  const responders = (p.alert.responders ?? []).filter((r) => r.type === 'team');
  return [...(p.alert.teams ?? []), ...responders.flatMap((r) => [r.id ?? '', r.name ?? ''])].filter(Boolean);
}

export function triggerWarnings(t: AlertTriggers, prefix: string): string[] {
  return t.tags.length || t.priorities.length || t.teams.length
    ? []
    : [`${prefix}.triggers sets no tags, priorities or teams: every created alert the webhook sends is investigated`];
}
