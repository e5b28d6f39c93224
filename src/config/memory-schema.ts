import { z } from 'zod';

/**
 * The labels that say which workload or place an issue is about (not which pod, instance or day):
 * a past incident is the same problem when none of these differs. `workload` is derived from `pod`
 * (a Deployment's, StatefulSet's or DaemonSet's name); `cluster`, `region`, `zone`, `env` and
 * `environment` say where it ran (see src/memory/memory-score.ts).
 */
export const DEFAULT_IDENTIFYING_LABELS: readonly string[] = [
  'namespace',
  'workload',
  'service',
  'job',
  'app',
  'app_kubernetes_io_name',
  'deployment',
  'statefulset',
  'daemonset',
  'container',
  'horizontalpodautoscaler',
  'consumergroup',
  'database',
  'queue',
  'project',
  'repository',
  'component',
  'cluster',
  'region',
  'zone',
  'env',
  'environment',
];

/**
 * Memory of past incidents (docs/memory.md): a compact record of every finished investigation,
 * kept far longer than full records, and the similar ones found for each new issue.
 */
export const MemoryConfigSchema = z.strictObject({
  enabled: z.boolean().default(true),
  /** How long a memory record is kept after its investigation finished. */
  retentionDays: z.int().min(1).max(3650).default(365),
  /** The score (0–1) a past incident needs to be offered as similar; below it, nothing is offered. */
  minScore: z.number().min(0).max(1).default(0.75),
  /** At most this many similar past incidents are offered for one issue. */
  maxSimilar: z.int().min(1).max(20).default(3),
  /** The labels kept in a memory record and compared (workload and place, never pod or instance). */
  identifyingLabels: z
    .array(z.string().min(1))
    .min(1)
    .default([...DEFAULT_IDENTIFYING_LABELS]),
  /** Write back a confirmed predecessor's RCA without running the model (same fingerprint or group key). */
  reuseConfirmed: z.boolean().default(false),
  /** How recent that confirmed predecessor must be. */
  reuseWithinHours: z.number().positive().max(8760).default(24),
  /** An OpenAI-compatible embeddings endpoint; not used yet (docs/memory.md), never required. */
  embeddings: z
    .strictObject({
      model: z.string().min(1),
      url: z.url().optional(),
      /** The env variable holding the endpoint's API key (never the key itself). */
      apiKeyEnv: z.string().min(1).optional(),
    })
    .optional(),
});
export type MemoryConfig = z.infer<typeof MemoryConfigSchema>;
