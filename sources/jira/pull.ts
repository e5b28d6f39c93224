import { ConfigError } from '../../src/errors.js';
import type { Issue } from '../../src/issue.js';
import type { PullSpec, SourceClient } from '../../src/registration/source.js';
import { apiFor } from './api-for.js';
import type { JiraConfig } from './config.js';
import type { JiraApi } from './jira-api.js';
import { issueFromBean } from './map-issue.js';
import { jiraWriteGate } from './pull-trust.js';
import type { IssueBean } from './schema.js';
import { searchIssues } from './search-issues.js';

export interface JiraQuery {
  jql: string;
  limit?: number;
}

/** Pull mode: the issues a JQL query finds, each investigated as asked (open, whatever its status). */
export class JiraPull implements SourceClient<JiraQuery> {
  /** What the last fetch found, by issue key, for the write gate (pull-trust.ts). */
  readonly beans = new Map<string, IssueBean>();

  constructor(
    private readonly api: JiraApi,
    private readonly pageSize?: number,
  ) {}

  async fetchIssues(query: JiraQuery): Promise<Issue[]> {
    const [me, beans] = await Promise.all([
      this.api.myself(),
      searchIssues(this.api, query.jql, { limit: query.limit, pageSize: this.pageSize }),
    ]);
    for (const b of beans) this.beans.set(b.key, b);
    return beans.map((b) => issueFromBean(b, { site: this.api.site, self: me }));
  }
}

export const jiraPullSpec: PullSpec<JiraConfig> = {
  description:
    'investigate the Jira issues a JQL query finds (Cloud: /rest/api/3/search/jql; Data Center: /rest/api/2/search)',
  noun: 'issue',
  options: [{ flags: '--jql <jql>', description: 'the issues to investigate, e.g. "project = OPS AND status = Open"' }],
  prepare(config, opts) {
    const jql = opts.jql as string | undefined;
    if (!jql?.trim()) throw new ConfigError('--jql is required, e.g. --jql "project = OPS AND status = Open"');
    const api = apiFor(config);
    const client = new JiraPull(api);
    return {
      client,
      query: { jql, limit: opts.limit as number | undefined } satisfies JiraQuery,
      writeGate: jiraWriteGate(api, config, client.beans),
    };
  },
};
