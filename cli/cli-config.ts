import type { Config } from '../src/config/schema.js';

/**
 * The configuration (file, then environment) with every source's, destination's and toolset's slice. Loaded by
 * the command that needs it, never at start-up: `--version` and `--help` import none of it.
 */
export async function loadCliConfig(env: NodeJS.ProcessEnv, file: string | undefined): Promise<Config> {
  const [{ loadConfig }, { sources }, { destinations }, { toolsets }] = await Promise.all([
    import('../src/config/load-config.js'),
    import('../sources/index.js'),
    import('../destinations/index.js'),
    import('../toolsets/index.js'),
  ]);
  return loadConfig(env, file, sources, destinations, toolsets);
}
