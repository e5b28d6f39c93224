import { z } from 'zod';
import type { DeployEvent } from '../../src/records/deploy-event.js';
import type { DeliveryOutcome } from '../../src/registration/source.js';

/** The parts of GitHub's `deployment_status` webhook payload that Lestrade reads; other keys are kept. */
export const DeploymentStatusEventSchema = z.looseObject({
  deployment_status: z.looseObject({
    state: z.string(),
    environment: z.string().optional(),
    environment_url: z.string().nullable().optional(),
    target_url: z.string().nullable().optional(),
  }),
  deployment: z.looseObject({
    id: z.int(),
    ref: z.string(),
    environment: z.string(),
    /** Whatever the deployment was created with: an object (or a JSON string) that may name the service. */
    payload: z.unknown().optional(),
  }),
  repository: z.looseObject({ name: z.string(), full_name: z.string() }),
});
export type DeploymentStatusEvent = z.infer<typeof DeploymentStatusEventSchema>;

/**
 * A deployment that reached `success` is a deploy (docs/checks-deploys.md); every other state is ignored.
 * service: the deployment payload's `service`, else the repository's name; namespace and version: the
 * payload's, the version else the deployment's ref; environment: the status's, else the deployment's; url:
 * the status's environment_url, else its target_url. One deploy per deployment (its id), however often
 * GitHub reports its success.
 */
export function deploymentStatusOutcome(e: DeploymentStatusEvent, receivedAt: Date): DeliveryOutcome {
  const state = e.deployment_status.state;
  if (state !== 'success') return { kind: 'ignored', reason: `deployment_status ${state} is not a finished deploy` };
  const p = payloadOf(e.deployment.payload);
  const url = [e.deployment_status.environment_url, e.deployment_status.target_url].find(isHttpUrl);
  const namespace = p['namespace'];
  const deploy: DeployEvent = {
    id: `github:${e.repository.full_name}:deployment:${e.deployment.id}`,
    service: p['service'] ?? e.repository.name,
    ...(namespace ? { namespace } : {}),
    version: p['version'] ?? e.deployment.ref,
    ...(url ? { url } : {}),
    environment: e.deployment_status.environment || e.deployment.environment,
    source: 'github',
    receivedAt: receivedAt.toISOString(),
  };
  return { kind: 'deploy', deploy };
}

/** The payload's string fields of interest: GitHub keeps whatever the deployment was created with. */
function payloadOf(raw: unknown): Record<'service' | 'namespace' | 'version', string | undefined> {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      value = null;
    }
  }
  const obj = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const pick = (k: string) => (typeof obj[k] === 'string' && obj[k].trim() ? obj[k].trim().slice(0, 253) : undefined);
  return { service: pick('service'), namespace: pick('namespace'), version: pick('version') };
}

function isHttpUrl(u: string | null | undefined): u is string {
  return typeof u === 'string' && /^https?:\/\//i.test(u) && URL.canParse(u);
}
