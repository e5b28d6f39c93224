import type { Issue } from '../../src/issue.js';
import type { PullSpec } from '../../src/registration/source.js';
import { alertPullSpec, AlertSearchPull } from '../ops-alerts-common/alert-pull.js';
import type { JsmOpsApi } from './api.js';
import type { JsmOpsConfig } from './config.js';
import { issueFromApiAlert, type JsmContext } from './map.js';
import type { JsmAlert } from './schema.js';

export const DEFAULT_PULL_QUERY = 'status: open';
/** JSM refuses offset + size of 20,000 or more. */
const MAX_OFFSET = 19_999;

/** Pull mode: the alerts a JSM alert search finds, newest first, every page followed (up to `limit`). */
export class JsmOpsPull extends AlertSearchPull<JsmAlert> {
  constructor(
    api: JsmOpsApi,
    private readonly ctx: JsmContext,
    pageSize = 100,
  ) {
    super(api, MAX_OFFSET, pageSize);
  }

  protected issuesOf(listed: JsmAlert[]): Promise<Issue[]> {
    return Promise.resolve(listed.map((a) => issueFromApiAlert(a, this.ctx)));
  }
}

/** `lestrade investigate jsm-ops [--query Q]` (the CLI adds -n, --update, --json-output-file). */
export function jsmOpsPull(
  apiFor: (c: JsmOpsConfig) => JsmOpsApi,
  ctxFor: (c: JsmOpsConfig) => JsmContext,
): PullSpec<JsmOpsConfig> {
  return alertPullSpec(
    {
      description: 'investigate the JSM Operations alerts a search query finds (GET /jsm/ops/api/{cloudId}/v1/alerts)',
      queryHelp: 'JSM alert search, e.g. "status: open AND priority: P1"',
      defaultQuery: DEFAULT_PULL_QUERY,
    },
    (config) => new JsmOpsPull(apiFor(config), ctxFor(config)),
  );
}
