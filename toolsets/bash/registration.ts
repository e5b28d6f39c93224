import type { ToolsetRegistration } from '../../src/registration/toolset.js';
import type { Toolset } from '../../src/tools/types.js';
import { BASH_ENV, BashSettingsSchema, BASH_SETTINGS_ENV, type BashSettings } from './config.js';
import { createBashToolset } from './index.js';

/** The bash toolset's registration: `toolsets.bash`, its variables, and how it is built. */
export const bashToolset: ToolsetRegistration<BashSettings, Toolset> = {
  name: 'bash',
  configSchema: BashSettingsSchema,
  env: BASH_ENV,
  settingsEnv: BASH_SETTINGS_ENV,
  create: (config) => [createBashToolset(config)],
};
