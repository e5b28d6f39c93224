import type { RunbookCatalog } from '../../src/runbooks/runbook-catalog.js';
import type { ToolsetRegistration } from '../../src/registration/toolset.js';
import type { Toolset } from '../../src/tools/types.js';
import { RUNBOOKS_ENV, RunbooksSettingsSchema, type RunbooksSettings } from './config.js';
import { createRunbookToolset } from './index.js';

/**
 * The runbooks toolset's registration: its settings are the top-level `runbooks` (the folders the
 * catalog is loaded from, and what fetch_runbook may read); it is handed the loaded catalog.
 */
export const runbooksToolset: ToolsetRegistration<RunbooksSettings, Toolset, { runbooks: RunbookCatalog }> = {
  name: 'runbooks',
  configKey: 'runbooks',
  configSchema: RunbooksSettingsSchema,
  env: RUNBOOKS_ENV,
  create: ({ allowedHosts, maxBytes, timeoutSeconds, cacheSeconds }, { runbooks }) => [
    createRunbookToolset(runbooks, { allowedHosts, maxBytes, timeoutMs: timeoutSeconds * 1000, cacheSeconds }),
  ],
};
