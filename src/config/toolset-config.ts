import { toolsetConfigPath, type ToolsetRegistration } from '../registration/toolset.js';
import type { Config } from './schema.js';

/**
 * A registered toolset's validated settings (`toolsets.<name>`, or its own top-level key). A config
 * loaded without that registration has none: the toolset then gets its schema's defaults.
 */
export function toolsetConfig<C>(config: Config, t: ToolsetRegistration<C, unknown, never>): C {
  let node: unknown = config;
  for (const key of toolsetConfigPath(t)) {
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined;
  }
  if (node !== undefined) return node as C;
  return (t.configSchema ? t.configSchema.parse({}) : undefined) as C;
}
