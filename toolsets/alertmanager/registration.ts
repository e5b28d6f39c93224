import type { ToolsetRegistration } from '../../src/registration/toolset.js';
import type { Toolset } from '../../src/tools/types.js';
import { ALERTMANAGER_ENV, AlertmanagerSettingsSchema, type AlertmanagerSettings } from './config.js';
import { createAlertmanagerToolsets } from './index.js';

/** The alertmanager toolset's registration: `toolsets.alertmanager`, its variables, and how it is built. */
export const alertmanagerToolset: ToolsetRegistration<AlertmanagerSettings, Toolset> = {
  name: 'alertmanager',
  configSchema: AlertmanagerSettingsSchema,
  env: ALERTMANAGER_ENV,
  create: (config) => [createAlertmanagerToolsets(config)],
};
