import { z } from 'zod';

const secret = z.string().min(1);

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
});
export type LlmConfig = z.infer<typeof LlmConfigSchema>;

const baseShape = {
  server: z.strictObject({
    port: z.int().min(0).max(65535).default(8080),
    host: z.string().default('0.0.0.0'),
    /** Largest webhook body accepted; bigger ones get 413. */
    bodyLimitBytes: z.int().positive().default(1_048_576),
    /** When set, /api/* requires "Authorization: Bearer <token>" (comma-separate several to rotate). */
    apiToken: secret.optional(),
    /** Lestrade's address as others reach it, for links from written-back comments to the full RCA. */
    publicUrl: z.url().optional(),
  }).prefault({}),
  redis: z.strictObject({
    url: z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://').optional(),
    /** Where `serve` keeps a local redis-server's data when no url is given. */
    dataDir: z.string().default('.data/redis'),
    /** The loopback port of that local redis-server. */
    localPort: z.int().min(1).max(65535).default(6380),
  }).prefault({}),
  llm: LlmConfigSchema.prefault({}),
  queue: z.strictObject({
    concurrency: z.int().min(1).max(256).default(2),
    attempts: z.int().min(1).max(50).default(6),
    backoffMs: z.int().positive().default(5_000),
    /** A worker holds its job's lock this long between renewals; a dead worker's job is taken over after it lapses. */
    lockDurationMs: z.int().min(1_000).default(30_000),
    /** How often workers look for jobs whose worker died. */
    stalledIntervalMs: z.int().min(500).default(30_000),
    /** How long a seen issue identity suppresses new investigations. */
    dedupTtlSeconds: z.int().positive().default(30 * 24 * 3600),
    /** How long investigation records are kept. */
    retentionSeconds: z.int().positive().default(30 * 24 * 3600),
  }).prefault({}),
  writeBack: z.strictObject({
    /** Tries of one write-back (each finds our earlier comment first, so none writes twice). */
    attempts: z.int().min(1).max(100).default(12),
    backoffMs: z.int().positive().default(10_000),
    /** How often an incident linked to a running investigation checks whether its RCA is ready. */
    linkedPollMs: z.int().min(100).default(30_000),
  }).prefault({}),
  tools: z.strictObject({
    maxOutputChars: z.int().positive().default(20_000),
    timeoutMs: z.int().positive().default(60_000),
  }).prefault({}),
  toolsets: z.strictObject({
    /** Extra folders of YAML toolsets. */
    dirs: z.array(z.string()).default([]),
    /** Per-toolset switches and settings, by toolset name. */
    settings: z.record(z.string(), z.strictObject({ enabled: z.boolean().optional() })).default({}),
    prometheus: z.strictObject({
      url: z.url().optional(),
      headers: z.record(z.string(), z.string()).default({}),
    }).prefault({}),
  }).prefault({}),
  /** A folder whose templates override the built-in ones of the same name. */
  templatesDir: z.string().optional(),
  log: z.strictObject({
    level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  }).prefault({}),
};

const BaseConfigSchema = z.strictObject(baseShape);

/** The config schema with one `sources.<name>` slice per registered source, each validated by its own schema. */
export function buildConfigSchema(sources: ReadonlyArray<{ name: string; configSchema: z.ZodType }>) {
  const slices = Object.fromEntries(sources.map((s) => [s.name, s.configSchema.prefault({})]));
  return z.strictObject({ ...baseShape, sources: z.strictObject(slices).prefault({}) });
}

/** The engine's config; each source reads its own slice of `sources` through its registration. */
export type Config = z.infer<typeof BaseConfigSchema> & { sources: Record<string, unknown> };
