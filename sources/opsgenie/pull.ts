import type { Issue } from '../../src/issue.js';
import type { PullSpec } from '../../src/registration/source.js';
import { alertPullSpec, AlertSearchPull } from '../ops-alerts-common/alert-pull.js';
import type { OpsgenieApi } from './api.js';
import type { OpsgenieConfig } from './config.js';
import { issueFromApiAlert } from './map.js';
import type { OgAlert } from './schema.js';

export const DEFAULT_PULL_QUERY = 'status:open';
/** OpsGenie refuses offset + limit beyond 20,000. */
const MAX_OFFSET = 20_000;

/**
 * Pull mode: the alerts an OpsGenie search query finds, newest first, every page followed (up to
 * `limit`); each is then read in full (GET /v2/alerts/{id}), as lists carry no description or details.
 */
export class OpsgeniePull extends AlertSearchPull<OgAlert> {
  constructor(
    private readonly api: OpsgenieApi,
    private readonly apiUrl: string,
    pageSize = 100,
  ) {
    super(api, MAX_OFFSET, pageSize);
  }

  protected async issuesOf(listed: OgAlert[]): Promise<Issue[]> {
    const issues: Issue[] = [];
    for (const a of listed) {
      const full = await this.api.getAlert(a.id);
      if (full) issues.push(issueFromApiAlert(full, { apiUrl: this.apiUrl }));
    }
    return issues;
  }
}

/** `lestrade investigate opsgenie [--query Q]` (the CLI adds -n, --update, --json-output-file). */
export function opsgeniePull(apiFor: (c: OpsgenieConfig) => OpsgenieApi): PullSpec<OpsgenieConfig> {
  return alertPullSpec(
    {
      description: 'investigate the OpsGenie alerts a search query finds (GET /v2/alerts)',
      queryHelp: 'OpsGenie alert search, e.g. "status:open priority:P1"',
      defaultQuery: DEFAULT_PULL_QUERY,
    },
    (config) => new OpsgeniePull(apiFor(config), config.apiUrl),
  );
}
