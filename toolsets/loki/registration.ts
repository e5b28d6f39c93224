import type { ToolsetRegistration } from '../../src/registration/toolset.js';
import type { Toolset } from '../../src/tools/types.js';
import { LOKI_ENV, LokiSettingsSchema, type LokiSettings } from './config.js';
import { createLokiToolsets } from './index.js';

/** The loki toolset's registration: `toolsets.loki`, its variables, and how it is built. */
export const lokiToolset: ToolsetRegistration<LokiSettings, Toolset> = {
  name: 'loki',
  configSchema: LokiSettingsSchema,
  env: LOKI_ENV,
  create: (config) => [createLokiToolsets(config)],
};
