import { perConfig } from '../common/per-config.js';
import { cloudApi } from './cloud-api.js';
import { connectionOf, type JiraConfig } from './config.js';
import { dataCenterApi } from './datacenter-api.js';
import type { JiraApi } from './jira-api.js';

/** One client per config, shared by the webhook, the writer and the pollers (one GET /myself). */
export const apiFor: (config: JiraConfig) => JiraApi = perConfig((config: JiraConfig) => {
  const c = connectionOf(config);
  return c.deployment === 'cloud' ? cloudApi(c.site, c.email, c.apiToken) : dataCenterApi(c.site, c.pat);
});
