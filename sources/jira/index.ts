import type { SourceRegistration } from '../../src/registration/source.js';
import { apiFor } from './api-for.js';
import { configWarnings, JIRA_ENV, JiraConfigSchema, offReason, webhookWarnings, type JiraConfig } from './config.js';
import { SOURCE } from './map-issue.js';
import { jiraPoller } from './poller.js';
import { jiraPullSpec } from './pull.js';
import { jiraWebhook } from './webhook.js';
import { jiraWriter } from './writer.js';

/**
 * Jira Cloud (REST v3, ADF) and Data Center (REST v2, wiki markup): webhook triggers, pull mode
 * by JQL, JQL pollers, and the RCA written back as one comment per issue.
 */
export const jira: SourceRegistration<JiraConfig> = {
  name: SOURCE,
  configSchema: JiraConfigSchema,
  env: JIRA_ENV,
  disabledReason: offReason,
  warnings: configWarnings,
  webhookWarnings,
  webhook: (config, ctx) => jiraWebhook(config, apiFor(config), ctx.log),
  writer: (config) => (config.writeBack ? jiraWriter(apiFor(config), config.commentLimit, config.projects) : null),
  pollers: (config) => config.poll.map((entry) => jiraPoller(apiFor(config), entry)),
  pull: jiraPullSpec,
};
