import { redactUrlsIn, type Redactor } from '../redact.js';
import type { ToolsetSettings } from './toolset-registry.js';
import type { Toolset, ToolsetStatus } from './types.js';
import { withoutUrlQueries } from './url-without-query.js';

/** A toolset the model has, as the system prompt shows it. */
export interface PromptToolset {
  name: string;
  description: string;
  /** The toolset's own instructions, then the operators' (`toolsets.settings.<name>.instructions`). */
  instructions?: string;
}

/** A toolset the model does not have, and why (what `lestrade toolsets list` says, without secrets). */
export interface UnavailableToolset {
  name: string;
  reason: string;
}

export interface ToolsetsForPrompt {
  toolsets: PromptToolset[];
  unavailable: UnavailableToolset[];
}

/** A reason is one line of status, not a log: this much of it is shown. */
export const MAX_REASON_CHARS = 240;

/**
 * What the system prompt says of the toolsets now: those whose tools the model is offered, with their
 * instructions, and every other one with why not, so the model does not ask for what it lacks. A
 * toolset that failed since start-up (an MCP server dropped) moves to the second list.
 */
export function toolsetsForPrompt(
  enabled: readonly Toolset[],
  statuses: readonly ToolsetStatus[],
  settings: ToolsetSettings,
  redact: Redactor,
): ToolsetsForPrompt {
  const stateOf = (ts: Toolset) => statuses.find((s) => s.name === ts.name && s.origin === ts.origin)?.state;
  const toolsets = enabled
    .filter((ts) => (stateOf(ts) ?? 'enabled') === 'enabled')
    .map((ts) => promptToolset(ts, Object.hasOwn(settings, ts.name) ? settings[ts.name]?.instructions : undefined));
  const names = new Set(toolsets.map((t) => t.name));
  const unavailable: UnavailableToolset[] = [];
  for (const s of statuses) {
    // A name the model has (a user's broken file named as a built-in) or one already listed is not repeated.
    if (s.state === 'enabled' || names.has(s.name)) continue;
    names.add(s.name);
    unavailable.push({ name: s.name, reason: safeReason(s.reason ?? s.state, redact) });
  }
  return { toolsets, unavailable };
}

function promptToolset(ts: Toolset, operators: string | undefined): PromptToolset {
  const instructions = [ts.instructions?.trim(), operators?.trim()].filter(Boolean).join('\n');
  return { name: ts.name, description: ts.description, ...(instructions ? { instructions } : {}) };
}

/**
 * A status reason fit for the prompt: the configuration's secrets redacted, URL passwords blanked,
 * URLs without their query or fragment (a token may ride there), one line, clipped.
 */
export function safeReason(reason: string, redact: Redactor): string {
  const text = cleanReason(reason, redact).replace(/\s+/g, ' ').trim();
  return text.length > MAX_REASON_CHARS ? `${text.slice(0, MAX_REASON_CHARS - 1)}…` : text;
}

/**
 * A status as a page or /readyz shows it: its reason quotes URLs and command output, so it gets the
 * prompt's treatment (secrets redacted, URL passwords blanked, URL queries dropped) but is not clipped.
 */
export function statusForDisplay(status: ToolsetStatus, redact: Redactor): ToolsetStatus {
  return status.reason ? { ...status, reason: cleanReason(status.reason, redact) } : status;
}

/** Secrets redacted, URL passwords blanked, URLs without their query or fragment (a token may ride there). */
function cleanReason(reason: string, redact: Redactor): string {
  return withoutUrlQueries(redactUrlsIn(redact(reason)));
}
