import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { Metrics } from '../observability/metrics.js';
import type { LoopState } from '../records/loop-state.js';
import { redactMessages } from '../redaction/redact-messages.js';
import { Redaction, restoreDeep, type RedactionRules } from '../redaction/redaction.js';

/** What a run does with private values: its requests redacted on the way out, its calls' arguments restored. */
export interface RunRedaction {
  outgoing?: (messages: ChatCompletionMessageParam[]) => ChatCompletionMessageParam[];
  restore: (args: unknown) => unknown;
}

/**
 * The run's redaction over the state's placeholders (created on the state, so they are checkpointed with it). A
 * checkpoint's placeholders are still mapped back in calls when redaction was switched off since.
 */
export function runRedaction(
  state: LoopState,
  rules: RedactionRules | null | undefined,
  metrics: Metrics,
): RunRedaction {
  const restore = (args: unknown) => restoreDeep(state.redaction, args);
  if (!rules) return { restore };
  state.redaction ??= { placeholders: {} };
  const redaction = new Redaction(rules, state.redaction, (kind) => metrics.redacted(kind));
  return { outgoing: (messages) => redactMessages(redaction, messages), restore };
}
