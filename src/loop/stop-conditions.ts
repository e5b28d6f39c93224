import type { LoopState } from '../records/loop-state.js';

/** A predicate over the loop's state; the loop stops (and forces an answer) when any is true. */
export type StopCondition = (state: LoopState) => boolean;

export const stepCountIs =
  (n: number): StopCondition =>
  (state) =>
    state.steps >= n;

export const toolCallCountIs =
  (n: number): StopCondition =>
  (state) =>
    state.toolCalls.length >= n;

export const tokenBudgetIs =
  (n: number): StopCondition =>
  (state) =>
    state.usage.promptTokens + state.usage.completionTokens >= n;
