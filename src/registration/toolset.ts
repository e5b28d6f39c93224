import type { z } from 'zod';
import type { Env, EnvBinding } from './source.js';

/**
 * Everything the configuration needs of a toolset written in TypeScript, and how to build it: its
 * settings' schema, the environment variables that fill them, and `create`. toolsets/index.ts lists
 * them; the config loader validates each slice with the rest of the config (as it does sources').
 *
 * `T` is what `create` builds (the engine's `Toolset`, src/tools/types.ts, a layer above this one)
 * and `D` what it is handed besides its settings (a logger, the runbook catalog). The toolset's
 * prerequisites are its `Toolset`'s own: checked by the executor, reasons naming the key to set.
 */
export interface ToolsetRegistration<C = unknown, T = unknown, D = unknown> {
  /** The toolset's name: its settings are `toolsets.<name>` unless `configKey` says otherwise. */
  readonly name: string;
  /**
   * A top-level key holding its settings instead of `toolsets.<name>`, where users' files already
   * have one (`mcp`, `runbooks`).
   */
  readonly configKey?: string;
  /** The schema of its settings, validated with the rest of the config; none when it has no settings. */
  readonly configSchema?: z.ZodType<C>;
  /** Environment variables and where they land inside its settings; env wins over the file. */
  readonly env?: readonly EnvBinding[];
  /** Environment variables that land in its generic switches, `toolsets.settings.<name>` (`enabled`). */
  readonly settingsEnv?: readonly EnvBinding[];
  /**
   * Before validation: fills in what its raw settings take from the environment (`${VAR}`), throwing a
   * ConfigError that names the key and the variable when one is not set.
   */
  prepare?(raw: unknown, env: Env, configPath?: string): void;
  /** Its toolsets (one, or one per configured server), from its validated settings. */
  create(config: C, deps: D): T[];
}

/** Where a registration's settings sit in the config tree. */
export function toolsetConfigPath(t: Pick<ToolsetRegistration, 'name' | 'configKey'>): string[] {
  return t.configKey ? [t.configKey] : ['toolsets', t.name];
}
