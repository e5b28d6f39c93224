import { z } from 'zod';
import { NamedTokensSchema } from './api-tokens-schema.js';
import { ChecksConfigSchema } from './checks-schema.js';
import { MemoryConfigSchema } from './memory-schema.js';
import { RedactionConfigSchema } from './redaction-schema.js';
import { RoutingConfigSchema, type RoutingConfig } from './routing-schema.js';
import { DEFAULT_PRIORITIES, DEFAULT_SKIP_RULES } from '../intake-policy/intake-policy.js';
import { SeveritySchema, type Severity } from '../issue.js';
import { REDIS_URL_PATTERN } from '../redis/redis-url.js';
import { DEFAULT_PREFIX, PREFIX_PATTERN } from '../redis/keys.js';

const SEVERITIES = SeveritySchema.options;
/** BullMQ priorities, 1 first; up to 900 so the dispatch set's scores stay exact (see claim-script.ts). */
const priority = z.int().min(1).max(900);

const secret = z.string().min(1);

/**
 * Investigations at once per process (`queue.concurrency`). They wait on the model almost all the time:
 * the storm bench held 128 in flight in about 70 MB above idle (docs/rate-limits.md), and the shared
 * limiter, not this number, bounds the requests sent.
 */
export const DEFAULT_CONCURRENCY = 128;

export const LlmConfigSchema = z.strictObject({
  apiKey: secret.optional(),
  baseUrl: z.url().optional(),
  model: z.string().min(1).default('gpt-4o'),
  maxSteps: z.int().min(2).max(500).default(40),
  maxParallelTools: z.int().min(1).max(64).default(4),
  timeoutMs: z.int().positive().default(120_000),
  /** SDK-level retries (honouring Retry-After) before the queue's own backoff takes over. */
  maxRetries: z.int().min(0).max(10).default(2),
  temperature: z.number().min(0).max(2).optional(),
  /**
   * How the model's tool calls are read (docs/configuration.md): `auto` also reads calls written as text
   * (`<tool_call>…</tool_call>`, a fenced or bare JSON call) when none came the API's way; `native` only the API's;
   * `text` describes the tools in a note instead of sending them, for servers that refuse `tools`.
   */
  toolCallFormat: z.enum(['auto', 'native', 'text']).default('auto'),
  /** The model's context window in tokens; unset, it follows the model's family (gpt-4o: 128k, gpt-4.1: 1M, ...). */
  contextWindow: z.int().min(2_000).optional(),
  /** Older turns are compacted (summarised) when a request would fill more than this share of the window. */
  compactAt: z.number().min(0.3).max(0.99).default(0.9),
  /** How long /readyz keeps the answer of its LLM probe (GET {baseUrl}/models); 0 probes every time. */
  readinessCacheSeconds: z.number().min(0).max(600).default(20),
  /** The model's rate limit, shared by every process through Redis (docs/rate-limits.md). */
  rateLimit: z
    .strictObject({
      /** Requests in any 60 s, every process together; unset: what the provider's headers say. */
      requestsPerMinute: z.int().min(1).optional(),
      /** Tokens (prompt + answer) in any 60 s, every process together; unset: what the provider's headers say. */
      tokensPerMinute: z.int().min(1).optional(),
      /** The longest one request waits on the limit (and the provider's resets) before its run is retried later. */
      maxWaitSeconds: z.int().min(1).max(86_400).default(900),
    })
    .prefault({}),
});
export type LlmConfig = z.infer<typeof LlmConfigSchema>;

/** The generic keys of `toolsets`; each registered toolset's settings join them as `toolsets.<name>`. */
const ToolsetsSchema = z.strictObject({
  /** Extra folders of YAML toolsets. */
  dirs: z.array(z.string()).default([]),
  /** Per-toolset switches and settings, by toolset name. */
  settings: z
    .record(
      z.string(),
      z.strictObject({
        enabled: z.boolean().optional(),
        /** Tools of this toolset that need a human's approval for every call (added to the toolset's own list). */
        approvalRequired: z.array(z.string().min(1)).optional(),
        /** Added to the toolset's own instructions in the system prompt (the operators' advice on using it). */
        instructions: z.string().trim().min(1).optional(),
      }),
    )
    .default({}),
});

const baseShape = {
  server: z
    .strictObject({
      port: z.int().min(0).max(65535).default(8080),
      /**
       * The listening address. Unset: 0.0.0.0 when an API token is configured, else 127.0.0.1 only
       * (server-access.ts); a non-loopback address with no token refuses to start unless allowUnauthenticated.
       */
      host: z.string().min(1).optional(),
      /** `lestrade worker`'s own HTTP port (/healthz, /readyz, /metrics only), on the same host. */
      workerPort: z.int().min(0).max(65535).default(8081),
      /** Largest webhook body accepted; bigger ones get 413. */
      bodyLimitBytes: z.int().positive().default(1_048_576),
      /** When set, /api/* requires "Authorization: Bearer <token>" (comma-separate several to rotate). */
      apiToken: secret.optional(),
      /** Named tokens (env LESTRADE_API_TOKENS=alice:<token>,bob:<token>): a decision is recorded as the token's name. */
      apiTokens: NamedTokensSchema.optional(),
      /** Serve /api, approvals and the dashboard with no token on a non-loopback HOST, on purpose. */
      allowUnauthenticated: z.boolean().default(false),
      /** When set, GET /metrics requires "Authorization: Bearer <token>" (comma-separate several to rotate); unset, it is open. */
      metricsToken: secret.optional(),
      /** Lestrade's address as others reach it, for links from written-back comments to the full RCA. */
      publicUrl: z.url().optional(),
    })
    .prefault({}),
  redis: z
    .strictObject({
      /** redis://, rediss:// (TLS), or redis+cluster://host:port,host:port (rediss+cluster:// for TLS) for a Redis Cluster. */
      url: z
        .string()
        .regex(REDIS_URL_PATTERN, 'must start with redis://, rediss://, redis+cluster:// or rediss+cluster://')
        .optional(),
      /** TLS beyond rediss:// itself: a private CA, a client certificate. */
      tls: z
        .strictObject({
          caFile: z.string().min(1).optional(),
          certFile: z.string().min(1).optional(),
          keyFile: z.string().min(1).optional(),
          /** false only for testing against self-signed certificates. */
          rejectUnauthorized: z.boolean().default(true),
        })
        .optional(),
      /**
       * The namespace of every key and queue (`{<prefix>}:…`): deployments, or tests, that share one
       * Redis each take their own. Changing it leaves the old namespace's work behind, unseen.
       */
      prefix: z.string().regex(PREFIX_PATTERN, 'must be 1-40 letters, digits, ".", "_" or "-"').default(DEFAULT_PREFIX),
      /** Where `serve` keeps a local redis-server's data when no url is given. */
      dataDir: z.string().default('.data/redis'),
      /** The loopback port of that local redis-server. */
      localPort: z.int().min(1).max(65535).default(6380),
    })
    .prefault({}),
  llm: LlmConfigSchema.prefault({}),
  queue: z
    .strictObject({
      concurrency: z.int().min(1).max(256).default(DEFAULT_CONCURRENCY),
      attempts: z.int().min(1).max(50).default(6),
      backoffMs: z.int().positive().default(5_000),
      /** A worker holds its job's lock this long between renewals; a dead worker's job is taken over after it lapses. */
      lockDurationMs: z.int().min(1_000).default(30_000),
      /** How often workers look for jobs whose worker died. */
      stalledIntervalMs: z.int().min(500).default(30_000),
      /**
       * On SIGTERM or SIGINT, how long runs in progress may take to finish; past it they are handed back to
       * the queue and another worker resumes each from its checkpoint. Keep it below the orchestrator's grace
       * period (terminationGracePeriodSeconds, stop_grace_period).
       */
      shutdownTimeoutSeconds: z.int().min(0).max(3600).default(30),
      /** Jobs BullMQ holds waiting at most; a storm's backlog waits in Lestrade's dispatch set, by priority. */
      dispatchWindow: z.int().min(1).max(100_000).default(200),
      /** How long a seen issue identity suppresses new investigations. */
      dedupTtlSeconds: z
        .int()
        .positive()
        .default(30 * 24 * 3600),
      /** How long investigation records are kept. */
      retentionSeconds: z
        .int()
        .positive()
        .default(30 * 24 * 3600),
    })
    .prefault({}),
  approvals: z
    .strictObject({
      /** How long calls wait for a human; then they are answered "not approved in time" and the model answers with what it has. */
      timeoutSeconds: z
        .int()
        .min(1)
        .max(30 * 24 * 3600)
        .default(3600),
    })
    .prefault({}),
  /** What intake does with an issue before it queues it: skip rules, priorities. */
  intake: z
    .strictObject({
      /** BullMQ priority per severity, lower first. */
      priorities: z
        .strictObject(
          Object.fromEntries(SEVERITIES.map((s) => [s, priority.default(DEFAULT_PRIORITIES[s])])) as Record<
            Severity,
            z.ZodDefault<typeof priority>
          >,
        )
        .prefault({}),
      /** Per source: overrides of some severities' priorities. */
      prioritiesBySource: z
        .record(
          z.string(),
          z.strictObject(
            Object.fromEntries(SEVERITIES.map((s) => [s, priority.optional()])) as Record<
              Severity,
              z.ZodOptional<typeof priority>
            >,
          ),
        )
        .default({}),
      /** Issues matching a rule are recorded as skipped, naming the rule, and not investigated. */
      skip: z
        .array(
          z.strictObject({
            name: z.string().min(1),
            matchers: z.array(z.string().min(1)).min(1),
            sources: z.array(z.string().min(1)).optional(),
          }),
        )
        .default(DEFAULT_SKIP_RULES),
      skipResolvedWhileQueued: z.boolean().default(true),
    })
    .prefault({}),
  /** Limits on what investigations may spend; work over a limit stays queued until it allows. */
  budgets: z
    .strictObject({
      investigationsPerHour: z.int().positive().optional(),
      perSourcePerHour: z.record(z.string(), z.int().positive()).default({}),
      perAlertnamePerHour: z.record(z.string(), z.int().positive()).default({}),
      tokensPerDay: z.int().positive().optional(),
      /** Critical issues start even when an hourly limit is reached (they still count). */
      criticalBypassesHourly: z.boolean().default(false),
      /** How often work held back by a budget looks again. */
      recheckSeconds: z.number().positive().default(60),
    })
    .prefault({}),
  /** Prices per million tokens by model name, for the cost of each investigation and each day. */
  pricing: z
    .strictObject({
      currency: z.string().min(1).default('USD'),
      models: z
        .record(z.string(), z.strictObject({ inputPerMillion: z.number().min(0), outputPerMillion: z.number().min(0) }))
        .default({}),
    })
    .prefault({}),
  writeBack: z
    .strictObject({
      /** Tries of one write-back (each finds our earlier comment first, so none writes twice). */
      attempts: z.int().min(1).max(100).default(12),
      backoffMs: z.int().positive().default(10_000),
      /** How often an incident linked to a running investigation checks whether its RCA is ready. */
      linkedPollMs: z.int().min(100).default(30_000),
      /** Hosts links in a write-back may point to, besides those tool results and trusted text named. */
      linkHosts: z.array(z.string().min(1)).default([]),
      /** Keep @mentions and issue references (#1, owner/repo#7, GH-1) live in write-backs. */
      allowMentions: z.boolean().default(false),
    })
    .prefault({}),
  tools: z
    .strictObject({
      /** What is kept of one tool output (the model gets at most maxResultTokens of it; the rest is retrievable). */
      maxOutputChars: z.int().positive().default(1_000_000),
      /** A result larger than min(15% of the context window, this) is not sent whole: its head and a hint instead. */
      maxResultTokens: z.int().min(100).default(25_000),
      timeoutMs: z.int().positive().default(60_000),
    })
    .prefault({}),
  toolsets: ToolsetsSchema.prefault({}),
  /** Memory of past incidents: what is kept, how similar ones are found (docs/memory.md). */
  memory: MemoryConfigSchema.prefault({}),
  /** Private values replaced by placeholders in everything sent to the model (docs/security.md). */
  redaction: RedactionConfigSchema.prefault({}),
  /** Health checks: questions asked on a schedule and after deploys (docs/checks.md). */
  checks: ChecksConfigSchema.prefault({}),
  /** A folder whose templates override the built-in ones of the same name. */
  templatesDir: z.string().optional(),
  log: z
    .strictObject({
      level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
      /** auto: readable on a terminal, JSON when piped; json or pretty force one. */
      format: z.enum(['auto', 'json', 'pretty']).default('auto'),
    })
    .prefault({}),
};

type Sliced = ReadonlyArray<{ name: string; configSchema: z.ZodType }>;
/** What the schema needs of a registered toolset (src/registration/toolset.ts). */
type ToolsetSliced = ReadonlyArray<{ name: string; configKey?: string; configSchema?: z.ZodType }>;

/**
 * The config schema with one `sources.<name>` slice per registered source, one
 * `destinations.<name>` per registered destination (beside `destinations.routes` and `.default`)
 * and one `toolsets.<name>` (or its own top-level key) per registered toolset with settings, each
 * validated by its own schema. Nothing of a vendor's is in it unless its registration is handed in.
 */
export function buildConfigSchema(sources: Sliced, destinations: Sliced = [], toolsets: ToolsetSliced = []) {
  const slices = Object.fromEntries(sources.map((s) => [s.name, s.configSchema.prefault({})]));
  const destinationSlices = Object.fromEntries(destinations.map((d) => [d.name, d.configSchema.prefault({})]));
  const withSettings = toolsets.flatMap((t) => (t.configSchema ? [{ ...t, configSchema: t.configSchema }] : []));
  const nested = withSettings.filter((t) => !t.configKey).map((t) => [t.name, t.configSchema.prefault({})]);
  const schema = z.strictObject({
    ...baseShape,
    toolsets: z.strictObject({ ...ToolsetsSchema.shape, ...Object.fromEntries(nested) }).prefault({}),
    sources: z.strictObject(slices).prefault({}),
    destinations: z.strictObject({ ...RoutingConfigSchema.shape, ...destinationSlices }).prefault({}),
  });
  const topLevel = withSettings.flatMap((t) =>
    t.configKey ? [[t.configKey, t.configSchema.prefault({})] as const] : [],
  );
  for (const [key] of topLevel) {
    if (key in schema.shape) throw new Error(`toolset config key "${key}" is already a key of the configuration`);
  }
  // The engine's type knows only its own keys: a toolset reads its top-level key through toolsetConfig.
  return topLevel.length ? (schema.extend(Object.fromEntries(topLevel)) as unknown as typeof schema) : schema;
}

type BaseConfig = z.infer<z.ZodObject<typeof baseShape, z.core.$strict>>;

/**
 * The engine's config; each source, destination and toolset reads its own slice through its
 * registration (a toolset's with `toolsetConfig`, src/config/toolset-config.ts).
 */
export type Config = Omit<BaseConfig, 'toolsets'> & {
  toolsets: BaseConfig['toolsets'] & Record<string, unknown>;
  sources: Record<string, unknown>;
  destinations: RoutingConfig & Record<string, unknown>;
};
