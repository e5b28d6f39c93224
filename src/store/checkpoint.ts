import { z } from 'zod';
import { CheckpointError, describeZodIssues } from '../errors.js';
import type { LoopState } from '../records/loop-state.js';

/**
 * Saved loop state is versioned: a checkpoint is `{version, savedAt, state}` and is parsed with
 * the schema of its version when loaded. Anything else (an older Lestrade's, a damaged one) is a
 * CheckpointError, a PermanentError: the investigation fails saying why, and never resumes half-read.
 * Bump the version whenever LoopState changes shape (a new optional field that older checkpoints of
 * the same version lack, read as absent, is the one exception).
 */
export const CHECKPOINT_VERSION = 2;

const ToolCallSchema = z.looseObject({
  id: z.string().min(1),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

const MessageSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content: z.string() }),
  z.looseObject({ role: z.literal('user'), content: z.union([z.string(), z.array(z.unknown())]) }),
  z.looseObject({
    role: z.literal('assistant'),
    content: z.string().nullable().optional(),
    tool_calls: z.array(ToolCallSchema).optional(),
  }),
  z.looseObject({ role: z.literal('tool'), tool_call_id: z.string(), content: z.string() }),
]);

const ToolResultSchema = z.strictObject({
  tool: z.string(),
  status: z.enum(['success', 'error', 'no_data', 'approval_required', 'denied']),
  data: z.string().optional(),
  error: z.string().optional(),
  feedback: z.string().optional(),
  decidedBy: z
    .strictObject({
      via: z.enum(['api', 'cli', 'dashboard', 'slack', 'mattermost', 'github', 'jira']),
      user: z.string(),
      name: z.string().optional(),
    })
    .optional(),
  params: z.record(z.string(), z.unknown()),
  elapsedMs: z.number(),
  truncated: z.boolean().optional(),
  outputTokens: z.number().optional(),
  hint: z.string().optional(),
  callId: z.string().optional(),
  vouches: z.literal(true).optional(),
  // The toolset instance the call went to; absent for toolsets of one and in older checkpoints.
  instance: z.string().optional(),
});

const PendingSchema = z.strictObject({
  toolCallId: z.string(),
  tool: z.string(),
  params: z.record(z.string(), z.unknown()),
  reason: z.string(),
  callKey: z.string(),
});

const AwaitingSchema = z
  .strictObject({
    seq: z.int().positive(),
    calls: z.array(z.strictObject({ id: z.string(), name: z.string(), arguments: z.string() })).min(1),
    results: z.array(ToolResultSchema.nullable()),
    approvals: z.array(PendingSchema).min(1),
  })
  .refine((t) => t.results.length === t.calls.length, 'results must match calls one to one');

const UsageSchema = z.strictObject({ promptTokens: z.number(), completionTokens: z.number(), llmCalls: z.int() });

const StateSchema = z.strictObject({
  messages: z.array(MessageSchema).min(1),
  steps: z.int().min(0),
  usage: UsageSchema,
  toolCalls: z.array(ToolResultSchema),
  callKeys: z.array(z.string()),
  awaiting: AwaitingSchema.nullable(),
  pauses: z.int().min(0),
  forceAnswer: z.literal('approval_expired').nullable(),
  question: z.string().nullable(),
  questionEntry: z.int().min(0).nullable(),
  // Optional: checkpoints of this version written before follow-ups were counted have none.
  questionUsage: UsageSchema.nullable().optional(),
  context: z.strictObject({
    windowTokens: z.int().min(0),
    peakTokens: z.int().min(0),
    compactions: z.array(
      z.strictObject({
        at: z.string(),
        step: z.int(),
        tokensBefore: z.int(),
        tokensAfter: z.int(),
        summarizedMessages: z.int(),
        truncatedResults: z.int(),
      }),
    ),
  }),
  // The model's plan (todo_write); absent in checkpoints written before it existed.
  plan: z
    .array(
      z.strictObject({ id: z.string(), content: z.string(), status: z.enum(['pending', 'in_progress', 'completed']) }),
    )
    .optional(),
  planPushedBack: z.boolean().optional(),
  runbooks: z
    .array(z.strictObject({ id: z.string(), title: z.string(), how: z.enum(['matched', 'fetched']) }))
    .optional(),
  // The issue's labels that pick toolset instances; absent in checkpoints written before instances.
  scope: z
    .strictObject({
      labels: z.record(z.string(), z.string()),
      instance: z.string().optional(),
      toolsets: z.array(z.string()).optional(),
    })
    .optional(),
  // A health check's run (docs/checks.md): its verdict so far; absent for any other investigation.
  check: z
    .strictObject({
      verdict: z
        .strictObject({ status: z.enum(['pass', 'warn', 'fail']), summary: z.string(), evidence: z.array(z.string()) })
        .nullable(),
      pushedBack: z.boolean(),
    })
    .optional(),
  // The placeholders of redaction (src/redaction/); absent in checkpoints written before it existed.
  redaction: z.strictObject({ placeholders: z.record(z.string(), z.string()) }).optional(),
});

const CheckpointSchema = z.strictObject({
  version: z.literal(CHECKPOINT_VERSION),
  savedAt: z.string(),
  state: StateSchema,
});

export function encodeCheckpoint(state: LoopState): string {
  return JSON.stringify({ version: CHECKPOINT_VERSION, savedAt: new Date().toISOString(), state });
}

/** Parses and validates a saved checkpoint; CheckpointError saying what is wrong otherwise. */
export function decodeCheckpoint(text: string): LoopState {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new CheckpointError('saved checkpoint is damaged (not JSON); the investigation cannot resume from it');
  }
  const version =
    doc && typeof doc === 'object' && !Array.isArray(doc) ? (doc as { version?: unknown }).version : undefined;
  if (version === undefined) {
    throw new CheckpointError(
      `saved checkpoint has no version (written by an older Lestrade); this one reads version ${CHECKPOINT_VERSION} only`,
    );
  }
  if (version !== CHECKPOINT_VERSION) {
    throw new CheckpointError(
      `saved checkpoint is version ${JSON.stringify(version)}; this Lestrade reads version ${CHECKPOINT_VERSION} only`,
    );
  }
  const parsed = CheckpointSchema.safeParse(doc);
  if (!parsed.success)
    throw new CheckpointError(`saved checkpoint is damaged: ${describeZodIssues(parsed.error.issues)}`);
  const state = parsed.data.state as unknown as LoopState;
  const unanswered = unansweredCall(state);
  if (unanswered)
    throw new CheckpointError(
      `saved checkpoint is damaged: tool call ${unanswered} has no result and is not awaiting approval`,
    );
  return state;
}

/** A tool_call with no tool message after it, other than those of the paused turn. */
function unansweredCall(state: LoopState): string | null {
  const answered = new Set(state.messages.flatMap((m) => (m.role === 'tool' ? [m.tool_call_id] : [])));
  const waiting = new Set(state.awaiting?.calls.map((c) => c.id) ?? []);
  for (const m of state.messages) {
    if (m.role !== 'assistant') continue;
    for (const c of m.tool_calls ?? []) if (!answered.has(c.id) && !waiting.has(c.id)) return c.id;
  }
  return null;
}
