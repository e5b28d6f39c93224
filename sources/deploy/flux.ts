import { z } from 'zod';
import type { DeployEvent } from '../../src/records/deploy-event.js';
import type { DeliveryOutcome } from '../../src/registration/source.js';

/**
 * A Flux event as the notification-controller's `generic` provider posts it (the fields Lestrade reads; the
 * rest is kept): the Flux object, the reason, and the source revision in metadata (`<group>/revision`).
 */
export const FluxEventSchema = z.looseObject({
  involvedObject: z.looseObject({
    kind: z.string().min(1),
    name: z.string().min(1).max(253),
    namespace: z.string().min(1).max(253),
  }),
  severity: z.string(),
  reason: z.string(),
  metadata: z.record(z.string(), z.string()).optional(),
});
export type FluxEvent = z.infer<typeof FluxEventSchema>;

/** The reasons Flux gives a finished rollout: kustomize-controller's, and helm-controller's install and upgrade. */
export const FLUX_DEPLOYED = new Set(['ReconciliationSucceeded', 'InstallSucceeded', 'UpgradeSucceeded']);

/** Whether a body is a Flux event (it names the Flux object it is about) rather than the deploy payload. */
export function isFluxEvent(body: unknown): boolean {
  return body !== null && typeof body === 'object' && 'involvedObject' in body;
}

/**
 * A Flux object reconciled (info, a reason in FLUX_DEPLOYED) is a deploy of the object's name, in its namespace,
 * at its source revision; one deploy per object and revision. Every other event is ignored, saying why.
 */
export function fluxOutcome(e: FluxEvent, receivedAt: Date): DeliveryOutcome {
  if (e.severity !== 'info' || !FLUX_DEPLOYED.has(e.reason))
    return { kind: 'ignored', reason: `Flux event ${e.reason} (${e.severity}) is not a finished deploy` };
  const { kind, name, namespace } = e.involvedObject;
  const revision = Object.entries(e.metadata ?? {}).find(([k]) => k === 'revision' || k.endsWith('/revision'))?.[1];
  const deploy: DeployEvent = {
    id: `flux:${kind}/${namespace}/${name}@${revision ?? e.reason}`,
    service: name,
    namespace,
    ...(revision ? { version: revision } : {}),
    source: 'webhook',
    receivedAt: receivedAt.toISOString(),
  };
  return { kind: 'deploy', deploy };
}
