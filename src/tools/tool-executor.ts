import { describeZodIssues } from '../errors.js';
import { callKey, paramsKey } from './call-key.js';
import { checkJsonSchemaArgs } from './json-schema-args.js';
import { applyFilters, hasFilters, splitFilters, type Filters } from './output-filters.js';
import { shapeOutput } from './shape-output.js';
import type { CallScope, CallVerdict, Tool, ToolOutput, ToolResult } from './types.js';
import type { RemediationRules } from '../records/remediation.js';
import { noMetrics, type Metrics, type ToolOutcome } from '../observability/metrics.js';
import { failSpan, GEN_AI, inSpan, SpanKind } from '../observability/tracing.js';

export interface ToolCallRequest {
  id: string;
  name: string;
  /** Raw JSON text as the model sent it. */
  arguments: string;
}

export interface ToolExecutorOptions {
  /** The tools, or a function giving them now (toolsets whose tools change while they run). */
  tools: Tool[] | (() => Tool[]);
  maxOutputChars?: number;
  timeoutMs?: number;
  /** Decides whether a side-effecting call may run; default: never. */
  isApproved?: (tool: Tool, params: Record<string, unknown>) => boolean;
  /** Tools that need a human's approval for every call (toolsets' approvalRequired lists). */
  approvalRequired?: Iterable<string>;
  /** Counts and times each call by toolset, tool and status (lestrade_tool_*). */
  metrics?: Metrics;
  /** Each tool's toolset, for the metrics' toolset label (a Map, or anything with its get). */
  toolsetOf?: Pick<ReadonlyMap<string, string>, 'get'>;
}

/** A call's result, and what became of it for the metrics. */
interface Counted {
  result: ToolResult;
  outcome: ToolOutcome;
}

export interface ExecuteOptions {
  /** The key of the call a human approved (PendingApproval.callKey): the call runs only if it is this one. */
  approvedCallKey?: string;
  /** The investigation's signal (cancel): reaches the running tool. */
  signal?: AbortSignal;
  /** With an approved call: its id across runs (ToolContext.approvalId). */
  approvalId?: string;
  /** With an approved call run again after a worker stopped during it: when it was started (ToolContext.interruptedAt). */
  interruptedAt?: string;
  /** The investigation's issue labels: they pick the instance of a toolset of several (Tool.pickInstance). */
  scope?: CallScope;
  /**
   * The arguments with the run's placeholders mapped back to the private values they stand for (redaction,
   * src/redaction/): the tool gets the real values, the model only ever wrote placeholders.
   */
  restore?: (args: unknown) => unknown;
}

/**
 * The one door every tool call goes through: lookup, argument parsing and validation,
 * approval check, execution with a timeout, and output shaping. Never throws.
 */
export class ToolExecutor {
  private readonly current: () => Tool[];
  private byNameOf: { list: Tool[]; map: Map<string, Tool> } | null = null;
  private readonly maxOutputChars: number;
  private readonly timeoutMs: number;
  private readonly isApproved: NonNullable<ToolExecutorOptions['isApproved']>;
  private readonly approvalRequired: Set<string>;
  private readonly metrics: Metrics;
  private readonly toolsetOf: Pick<ReadonlyMap<string, string>, 'get'>;

  constructor(opts: ToolExecutorOptions) {
    const tools = opts.tools;
    this.current = typeof tools === 'function' ? tools : () => tools;
    this.maxOutputChars = opts.maxOutputChars ?? 20_000;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.isApproved = opts.isApproved ?? (() => false);
    this.approvalRequired = new Set(opts.approvalRequired ?? []);
    this.metrics = opts.metrics ?? noMetrics;
    this.toolsetOf = opts.toolsetOf ?? new Map();
  }

  get tools(): Tool[] {
    return [...this.byName.values()];
  }

  /** The tools a run of this scope is offered: those of its `toolsets` only, when it names them. */
  toolsFor(scope: CallScope | undefined): Tool[] {
    return this.tools.filter((t) => this.inScope(t.name, scope));
  }

  private inScope(name: string, scope: CallScope | undefined): boolean {
    return !scope?.toolsets || scope.toolsets.includes(this.toolsetOf.get(name) ?? '');
  }

  /** Whether an approved call of this tool may run again after a worker stopped during it (Tool.idempotent). */
  isIdempotent(name: string): boolean {
    return this.byName.get(name)?.idempotent === true;
  }

  /** A remediation tool's rails (Tool.remediation), or undefined for any other tool. */
  remediationOf(name: string): RemediationRules | undefined {
    return this.byName.get(name)?.remediation;
  }

  /** The tools by name, rebuilt when the list changed (a new array from `current`). */
  private get byName(): Map<string, Tool> {
    const list = this.current();
    if (this.byNameOf?.list !== list) this.byNameOf = { list, map: new Map(list.map((t) => [t.name, t])) };
    return this.byNameOf.map;
  }

  /**
   * One call, counted and timed and traced as an `execute_tool {name}` span (name and call id;
   * never the arguments or the output). A name the model made up is labelled "unknown".
   */
  async execute(call: ToolCallRequest, opts: ExecuteOptions = {}): Promise<ToolResult> {
    const known = this.byName.has(call.name);
    const tool = known ? call.name : 'unknown';
    const toolset = known ? (this.toolsetOf.get(call.name) ?? 'unknown') : 'unknown';
    const attributes = {
      [GEN_AI.operation]: 'execute_tool',
      [GEN_AI.toolName]: tool,
      [GEN_AI.toolCallId]: call.id,
      [GEN_AI.toolType]: 'function',
    };
    return inSpan(`execute_tool ${tool}`, SpanKind.INTERNAL, attributes, async (span) => {
      const { result, outcome } = await this.run(call, opts);
      this.metrics.toolCall(toolset, tool, result.status, outcome, result.elapsedMs / 1000);
      span.setAttribute('lestrade.tool.status', result.status);
      if (result.status === 'error') failSpan(span, 'tool_error');
      return result;
    });
  }

  /** The call's result, and its outcome for the metrics (whether the tool ran at all). */
  private async run(call: ToolCallRequest, opts: ExecuteOptions): Promise<Counted> {
    const started = performance.now();
    const at: { instance?: string } = {};
    const done = (outcome: ToolOutcome, r: Omit<ToolResult, 'tool' | 'elapsedMs'>): Counted => ({
      outcome,
      result: { tool: call.name, ...r, ...at, elapsedMs: Math.round(performance.now() - started) },
    });
    const tool = this.byName.get(call.name);
    if (!tool) {
      return done('invalid', {
        status: 'error',
        error: `unknown tool "${call.name}"; available: ${[...this.byName.keys()].join(', ')}`,
        params: {},
      });
    }
    let raw: unknown;
    try {
      // With redaction, the placeholders the model wrote become the values they stand for (ExecuteOptions.restore).
      raw = (opts.restore ?? asIs)(call.arguments.trim() === '' ? {} : JSON.parse(call.arguments));
    } catch {
      return done('invalid', { status: 'error', error: 'arguments are not valid JSON', params: {} });
    }
    const rawParams = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
    // The runtime's output filters (output_grep, ...) are not the tool's: taken out before validation.
    const split =
      raw && typeof raw === 'object' && !Array.isArray(raw)
        ? splitFilters(rawParams, ownParams(tool))
        : { args: raw, filters: {} as Filters };
    if ('error' in split) return done('invalid', { status: 'error', error: split.error, params: rawParams });
    // zod reads declared keys through the prototype chain: a parameter named "constructor" must
    // see only what the model sent, so validate a null-prototype copy (splitFilters made one).
    const parsed = tool.params.safeParse(split.args);
    if (!parsed.success) {
      return done('invalid', {
        status: 'error',
        error: `invalid arguments: ${describeZodIssues(parsed.error.issues)}`,
        params: rawParams,
      });
    }
    const params = parsed.data;
    const schemaError = tool.inputSchema ? checkJsonSchemaArgs(tool.inputSchema, params) : null;
    if (schemaError)
      return done('invalid', { status: 'error', error: `invalid arguments: ${schemaError}`, params: rawParams });
    const shown = hasFilters(split.filters) ? { ...params, ...split.filters } : params;
    const verdict = await this.verdict(tool, params, opts.scope, at);
    if (verdict.decision === 'deny')
      return done('refused', { status: 'error', error: `refused: ${verdict.reason}`, params: shown });
    // Approved means: a human approved exactly this call (same tool, same arguments).
    const approved =
      verdict.decision === 'ask' &&
      ((opts.approvedCallKey !== undefined && opts.approvedCallKey === callKey(call.name, call.arguments)) ||
        this.isApproved(tool, params));
    if (verdict.decision === 'ask' && !approved)
      return done('approval_required', { status: 'approval_required', error: verdict.reason, params: shown });
    const output = await this.runWithTimeout(tool, params, approved, { ...opts, ...at });
    if (output.status === 'error') return done('error', { status: 'error', error: output.error, params: shown });
    const filtering = hasFilters(split.filters);
    const filtered = output.data !== undefined && filtering ? applyFilters(output.data, split.filters) : output.data;
    if (filtering && filtered === '' && output.status === 'success')
      return done('no_data', { status: 'no_data', data: 'nothing left after the output filters', params: shown });
    const shaped = filtered === undefined ? null : shapeOutput(filtered, this.maxOutputChars);
    // "No data" with nothing to show (none, or all filtered away): the tool's message says more than "".
    const data = output.status === 'no_data' && !shaped?.text ? (output.message ?? 'no data found') : shaped?.text;
    const shapes = { ...(shaped?.truncated ? { truncated: true } : {}), ...marks(tool, output) };
    return done(output.status, { status: output.status, data, params: shown, ...shapes });
  }

  /**
   * Refuse, ask or allow: a check's toolsets first (a tool outside them, refused), then the instance (a toolset of
   * several: the one the call goes to, set in `at`, or another cluster's, refused), then the tool's own per-call
   * policy, then side effects, then the toolset's list.
   */
  private async verdict(
    tool: Tool,
    params: Record<string, unknown>,
    scope: CallScope | undefined,
    at: { instance?: string },
  ): Promise<CallVerdict> {
    if (!this.inScope(tool.name, scope)) {
      const allowed = scope?.toolsets?.join(', ') ?? '';
      return {
        decision: 'deny',
        reason: `${tool.name} is not in this check's toolsets (${allowed}); use their tools only`,
      };
    }
    const picked = tool.pickInstance?.(params, scope);
    if (picked && 'refused' in picked) return { decision: 'deny', reason: picked.refused };
    if (picked) at.instance = picked.instance;
    let own: CallVerdict;
    try {
      own = tool.verdict ? await tool.verdict(params) : { decision: 'allow' };
    } catch (err) {
      return { decision: 'deny', reason: `the call could not be checked: ${(err as Error).message}` };
    }
    if (own.decision !== 'allow') return own;
    if (tool.sideEffects)
      return { decision: 'ask', reason: `${tool.name} has side effects and needs a human's approval` };
    if (this.approvalRequired.has(tool.name))
      return { decision: 'ask', reason: `${tool.name} is on its toolset's approvalRequired list` };
    return own;
  }

  private async runWithTimeout(
    tool: Tool,
    params: Record<string, unknown>,
    approved: boolean,
    { signal, approvalId, interruptedAt, instance }: ExecuteOptions & { instance?: string },
  ): Promise<ToolOutput> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<ToolOutput>((resolve) => {
      timer = setTimeout(() => {
        // Settle first: aborting can make the tool settle synchronously, and the timeout must win.
        resolve({ status: 'error', error: `timed out after ${this.timeoutMs} ms` });
        controller.abort();
      }, this.timeoutMs);
    });
    try {
      const ctx = {
        signal: controller.signal,
        approved,
        ...(instance !== undefined ? { instance } : {}),
        ...(approved ? { approvedCall: paramsKey(tool.name, params) } : {}),
        ...(approved && approvalId !== undefined ? { approvalId } : {}),
        ...(approved && interruptedAt !== undefined ? { interruptedAt } : {}),
      };
      return await Promise.race([tool.run(params, ctx), timeout]);
    } catch (err) {
      return { status: 'error', error: err instanceof Error ? err.message : String(err) };
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }
}

const asIs = (args: unknown): unknown => args;

/** `vouches` when the result may vouch for links (vouched-hosts.ts): the result's own say first, else the tool's. */
function vouching(tool: Tool, output: Exclude<ToolOutput, { status: 'error' }>): { vouches?: true } {
  return (output.vouches ?? tool.vouchesForLinks) ? { vouches: true } : {};
}

/** `vouches` (vouching), and `alreadyApplied` when a side-effecting tool found its change made already. */
function marks(
  tool: Tool,
  output: Exclude<ToolOutput, { status: 'error' }>,
): { vouches?: true; alreadyApplied?: true } {
  const applied = output.status === 'success' && output.alreadyApplied ? { alreadyApplied: true as const } : {};
  return { ...vouching(tool, output), ...applied };
}

/** The tool's own parameter names: its JSON Schema's properties when it declared one, else its zod shape. */
function ownParams(tool: Tool): Record<string, unknown> {
  const props = tool.inputSchema?.properties;
  return props && typeof props === 'object' ? (props as Record<string, unknown>) : tool.params.shape;
}
