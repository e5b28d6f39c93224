import type { Config } from '../config/schema.js';
import type { AnyDestination } from '../delivery/destination.js';
import type { Investigator } from '../investigation/investigator.js';
import type { LlmRateLimiter } from '../llm/rate-limiter.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../observability/metrics.js';
import type { AnySource } from '../registration/source.js';
import type { VerifyProbes } from '../remediation/probes.js';
import type { RunbookCatalog } from '../runbooks/runbook-catalog.js';
import type { ResolvedToolsets } from '../tools/toolset-registry.js';

type Env = Record<string, string | undefined>;

/** The toolsets as the service uses them: built by whoever knows the registered ones (cli/build-investigator.ts). */
export interface ToolsetsPort {
  /** The investigator, every toolset checked; the caller closes the toolsets. */
  buildInvestigator(
    config: Config,
    env: Env,
    metrics: Metrics,
    limits: { limiter?: LlmRateLimiter; log: Logger },
  ): Promise<{ investigator: Investigator; toolsets: ResolvedToolsets; runbooks: RunbookCatalog }>;
  /** Every toolset checked afresh (the dashboard's view where this process runs no workers); the caller closes it. */
  check(config: Config, env: Env, log: Logger): Promise<ResolvedToolsets>;
  /** The folder of the YAML toolsets shipped with Lestrade: its paths are not shown on pages. */
  shippedYamlDir: string;
  /** What applied remediations are verified with, and for how long (docs/remediation.md, "Verified"). */
  verifyProbes?(config: Config): VerifyProbes & { windowSeconds: number; intervalSeconds: number };
}

/**
 * What the engine is handed by the CLI: the registered sources, destinations and toolsets
 * (sources/index.ts, destinations/index.ts, toolsets/index.ts). The engine knows no vendor.
 */
export interface Registered {
  sources: readonly AnySource[];
  destinations: readonly AnyDestination[];
  toolsets: ToolsetsPort;
}
