import { cloudApi } from './cloud-api.js';
import { connectionOf, type JiraConfig } from './config.js';
import { dataCenterApi } from './datacenter-api.js';
import type { JiraApi } from './jira-api.js';

const cache = new WeakMap<JiraConfig, JiraApi>();

/** One client per config, shared by the webhook, the writer and the pollers (one GET /myself). */
export function apiFor(config: JiraConfig): JiraApi {
  let api = cache.get(config);
  if (!api) {
    const c = connectionOf(config);
    api = c.deployment === 'cloud' ? cloudApi(c.site, c.email, c.apiToken) : dataCenterApi(c.site, c.pat);
    cache.set(config, api);
  }
  return api;
}
