import type { ToolsetRegistration } from '../../src/registration/toolset.js';
import type { Toolset } from '../../src/tools/types.js';
import { KubernetesSettingsSchema, type KubernetesSettings } from './config.js';

/**
 * `toolsets.kubernetes`: the settings of the shipped YAML kubernetes toolset (its instances). The toolset itself is
 * the YAML file's; toolsets/index.ts (yamlToolsets) applies these settings to it, so this builds nothing.
 */
export const kubernetesToolset: ToolsetRegistration<KubernetesSettings, Toolset> = {
  name: 'kubernetes',
  configSchema: KubernetesSettingsSchema,
  create: () => [],
};
