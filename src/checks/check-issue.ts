import type { CheckConfig } from '../config/checks-schema.js';
import { CHECK_SOURCE } from '../investigation/investigator.js';
import type { Issue } from '../issue.js';
import type { DeployEvent } from '../records/deploy-event.js';
import { deployLabel } from './check-state.js';

/**
 * The Issue a check's run is an investigation of: title = the check's name, description = its question (operators'
 * text, not fenced as third-party). `runKey` makes the identity: one tick, one manual run or one deploy is claimed once.
 */
export function checkIssue(check: CheckConfig, runKey: string, now: Date, deploy?: DeployEvent): Issue {
  const annotations: Record<string, string> = {};
  if (check.toolsets?.length) annotations.toolsets = check.toolsets.join(',');
  if (check.instance) annotations.instance = check.instance;
  if (deploy) annotations.deploy = describeDeploy(deploy);
  return {
    identity: `${check.name}@${runKey}`,
    fingerprint: check.name,
    source: CHECK_SOURCE,
    sourceInstance: '',
    title: check.name,
    description: check.question,
    url: null,
    severity: check.severity,
    status: 'open',
    labels: { check: check.name, ...(deploy ? { service: deploy.service } : {}) },
    annotations,
    startedAt: now.toISOString(),
    raw: deploy ? { check: check.name, deploy } : { check: check.name },
  };
}

/** "checkout v2.41.0 in namespace shop (production)": what the prompt says of the deploy. */
function describeDeploy(d: DeployEvent): string {
  const where = [d.namespace ? `in namespace ${d.namespace}` : '', d.environment ? `(${d.environment})` : '']
    .filter(Boolean)
    .join(' ');
  return `${deployLabel(d)}${where ? ` ${where}` : ''}, seen ${d.receivedAt}`;
}
