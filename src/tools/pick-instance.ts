import type { CallScope, InstancePick } from './types.js';

/** The instance the single-URL (or single-context) form of a toolset is, and the one an unmatched label falls to. */
export const DEFAULT_INSTANCE = 'default';

/** The issue label naming the instance unless a toolset's `instanceLabel` says otherwise. */
export const DEFAULT_INSTANCE_LABEL = 'cluster';

/** How a toolset of several instances is kept to the issue's own (`instanceLabel`, `crossInstance`). */
export interface InstanceScoping {
  /** The issue label whose value names the instance (`cluster` unless the toolset's `instanceLabel` says). */
  label: string;
  /** Calls may go to an instance other than the issue's own. */
  crossInstance: boolean;
  /** Where these settings live, for the messages (`toolsets.prometheus`). */
  configKey: string;
}

/**
 * The issue's own instance: the one its label names; else (no label, or a value naming no instance) the `default`
 * instance; else, with no label, the only instance. Undefined when none is the issue's: the model names one.
 */
export function issueInstance(
  names: readonly string[],
  scoping: InstanceScoping,
  scope?: CallScope,
): string | undefined {
  const value = scopeValue(scoping, scope);
  if (value !== undefined && names.includes(value)) return value;
  if (names.includes(DEFAULT_INSTANCE)) return DEFAULT_INSTANCE;
  if (value === undefined && names.length === 1) return names[0];
  return undefined;
}

/**
 * Where one call goes. The instance the model asked for goes through when it is the issue's own, when the issue has
 * none and no label (nothing to keep it to), or with `crossInstance`; any other is refused, naming the key that
 * would allow it. A call that names none goes to the issue's own; with none, the model is told to name one.
 */
export function pickInstance(
  asked: string | undefined,
  names: readonly string[],
  scoping: InstanceScoping,
  scope?: CallScope,
): InstancePick {
  const own = issueInstance(names, scoping, scope);
  const value = scopeValue(scoping, scope);
  const labelled = value === undefined ? '' : `${scope?.instance === undefined ? scoping.label : 'instance'}=${value}`;
  if (asked === undefined) {
    if (own !== undefined) return { instance: own };
    if (value !== undefined && !scoping.crossInstance) return { refused: noInstanceFor(labelled, names, scoping) };
    return { refused: `name the instance: one of ${names.join(', ')} (the issue's ${scoping.label} label names none)` };
  }
  if (!names.includes(asked)) return { refused: `no instance ${asked}: one of ${names.join(', ')}` };
  if (asked === own || scoping.crossInstance || (own === undefined && value === undefined)) return { instance: asked };
  const whose =
    own === undefined
      ? noInstanceFor(labelled, names, scoping)
      : `the issue is ${labelled || 'unlabelled'}, instance ${own}`;
  return {
    refused:
      `instance ${asked} is not this issue's (${whose}); an investigation queries only its own instance ` +
      `unless ${scoping.configKey}.crossInstance is true`,
  };
}

/** The instance the run names: a check's `instance` (whatever the label), else the issue's label. */
function scopeValue(scoping: InstanceScoping, scope: CallScope | undefined): string | undefined {
  return scope?.instance ?? scope?.labels[scoping.label];
}

function noInstanceFor(labelled: string, names: readonly string[], scoping: InstanceScoping): string {
  return (
    `the issue is ${labelled}, which names no instance (${names.join(', ')}) and there is no ${DEFAULT_INSTANCE} ` +
    `one; add an instance of that name to ${scoping.configKey}.instances, or set ${scoping.configKey}.crossInstance: true`
  );
}
