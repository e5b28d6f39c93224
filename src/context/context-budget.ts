import type { ToolResult } from '../tools/types.js';
import type { TokenCounter } from './token-counter.js';

export interface ContextBudgetOptions {
  windowTokens: number;
  /** Compact when a request would take more than this fraction of the window. */
  compactAt: number;
  /** Cap on one tool result sent whole, besides 15% of the window. */
  maxResultTokens: number;
}

/** A result bigger than this share of the window is never sent whole, whatever the cap says. */
const RESULT_SHARE = 0.15;

/** The context window's rules: how big one tool result may be, and when history must be compacted. */
export class ContextBudget {
  constructor(
    readonly counter: TokenCounter,
    private readonly opts: ContextBudgetOptions,
  ) {}

  get windowTokens(): number {
    return this.opts.windowTokens;
  }

  /** min(15% of the window, the configured cap). */
  get resultLimit(): number {
    return Math.max(1, Math.min(Math.floor(this.opts.windowTokens * RESULT_SHARE), this.opts.maxResultTokens));
  }

  get compactThreshold(): number {
    return Math.floor(this.opts.windowTokens * this.opts.compactAt);
  }

  /**
   * For a result too large to send whole: what the model gets instead (its size, a head, a hint
   * to narrow the query) and the full text to keep. Null when the result fits.
   */
  fit(result: ToolResult): { view: ToolResult; full: string } | null {
    if (result.data === undefined) return null;
    const tokens = this.counter.count(result.data);
    if (tokens <= this.resultLimit) return null;
    const headTokens = Math.min(2_000, Math.floor(this.resultLimit / 2));
    const hint =
      `This output is ${tokens} tokens, more than is sent whole (limit ${this.resultLimit}); data holds its first ${headTokens} tokens and the whole is kept for the humans. ` +
      'Narrow it: call again with output_grep (lines containing a text; a|b for either), output_head or output_tail (numbers of lines), ' +
      'output_fields (JSON field paths, e.g. ["metadata.name","status.phase"]), or a narrower query.';
    return {
      view: {
        ...result,
        data: this.counter.head(result.data, headTokens),
        truncated: true,
        outputTokens: tokens,
        hint,
      },
      full: result.data,
    };
  }
}
