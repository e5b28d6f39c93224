import type { Config } from '../src/config/schema.js';
import type { Logger } from '../src/log.js';
import { startService as startComposed, type RunningService, type ServiceOptions } from '../src/app/start-service.js';
import type { Registered } from '../src/app/registered.js';
import { sources } from '../sources/index.js';
import { destinations } from '../destinations/index.js';
import { BUILTIN_YAML_DIR } from '../toolsets/index.js';
import { verifyProbes } from '../toolsets/verify-probes.js';
import { buildInvestigator, buildToolsets } from './build-investigator.js';

export type { RunningService, ServiceOptions };

/** What this build registers: every source, destination and toolset, handed to the engine's composition root. */
export const registered: Registered = {
  sources,
  destinations,
  toolsets: {
    buildInvestigator: (config, env, metrics, limits) => buildInvestigator(config, env, metrics, limits),
    check: (config, env, log) => buildToolsets(config, env, undefined, log),
    shippedYamlDir: BUILTIN_YAML_DIR,
    verifyProbes,
  },
};

/** `lestrade serve` / `lestrade worker`: the HTTP side, the workers, or both (src/app/start-service.ts). */
export function startService(
  config: Config,
  redisUrl: string,
  log: Logger,
  opts: ServiceOptions,
): Promise<RunningService> {
  return startComposed(config, redisUrl, log, opts, registered);
}
