import { ConfigError } from '../../src/errors.js';
import { callJson, parseAnswer } from '../ops-alerts-common/http-json.js';
import { TenantInfoSchema } from './schema.js';

/**
 * GET <site>/_edge/tenant_info → {cloudId}: Atlassian's public endpoint naming a site's cloud id
 * (no credentials needed). Failures are typed like any vendor call; a site that is not an
 * Atlassian site answers 404, a permanent error naming the site.
 */
export async function lookUpCloudId(site: string, timeoutMs: number): Promise<string> {
  if (!site) throw new ConfigError('sources.jsm-ops: no cloudId and no siteUrl to look it up');
  const url = new URL(`${site.replace(/\/+$/, '')}/_edge/tenant_info`);
  const what = `look up the cloudId of ${url.host}`;
  const res = await callJson({
    vendor: 'Atlassian',
    what,
    method: 'GET',
    url,
    headers: {},
    timeoutMs,
    reasonOf: (b) => (typeof b === 'string' ? b.slice(0, 200) : ''),
  });
  return parseAnswer(TenantInfoSchema, res.body, 'Atlassian', what).cloudId;
}
