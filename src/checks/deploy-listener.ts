import type { Queue } from 'bullmq';
import type { CheckConfig } from '../config/checks-schema.js';
import type { Logger } from '../log.js';
import type { DeployEvent, DeployListener } from '../records/deploy-event.js';
import { requestDeployRun, type CheckJobData } from './check-queue.js';

/** Whether an afterDeploy check cares about this deploy: its `services` and `namespaces`, when given, must match. */
export function matchesDeploy(check: CheckConfig, deploy: DeployEvent): boolean {
  if (!check.enabled || !check.afterDeploy) return false;
  if (check.services && !check.services.includes(deploy.service)) return false;
  if (check.namespaces && !(deploy.namespace && check.namespaces.includes(deploy.namespace))) return false;
  return true;
}

/**
 * The health checks' DeployListener (docs/checks.md#after-a-deploy): each matching afterDeploy check runs
 * `delaySeconds` after the deploy, as a delayed job whose id comes from the deploy's id and the check's name, so a
 * deploy told twice (or to two processes) runs each check once.
 */
export function createDeployListener(
  queue: Queue<CheckJobData>,
  checks: readonly CheckConfig[],
  log: Logger,
): DeployListener {
  return async (deploy) => {
    const matching = checks.filter((c) => matchesDeploy(c, deploy));
    for (const check of matching) await requestDeployRun(queue, check, deploy);
    if (matching.length)
      log.info(
        { deploy: deploy.id, service: deploy.service, checks: matching.map((c) => c.name) },
        'checks scheduled after a deploy',
      );
  };
}
