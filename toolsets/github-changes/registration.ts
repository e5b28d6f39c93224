import type { ToolsetRegistration } from '../../src/registration/toolset.js';
import type { Toolset } from '../../src/tools/types.js';
import { GITHUB_CHANGES_ENV, GithubChangesSettingsSchema, type GithubChangesSettings } from './config.js';
import { createGithubChangesToolset } from './index.js';

/** The github_changes toolset's registration: `toolsets.github_changes`, its variables, and how it is built. */
export const githubChangesToolset: ToolsetRegistration<GithubChangesSettings, Toolset> = {
  name: 'github_changes',
  configSchema: GithubChangesSettingsSchema,
  env: GITHUB_CHANGES_ENV,
  create: (config) => [createGithubChangesToolset(config)],
};
