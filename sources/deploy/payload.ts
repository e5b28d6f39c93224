import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { DeployEvent } from '../../src/records/deploy-event.js';

const text = (max: number) => z.string().trim().min(1).max(max);

/** POST /webhooks/deploy's body (docs/checks-deploys.md): a field it does not know is refused, naming it. */
export const DeployPayloadSchema = z.strictObject({
  /** Stable id of this deploy, e.g. the sync's revision and time; by default a digest of the other fields. */
  id: text(200).optional(),
  service: text(200),
  namespace: text(253).optional(),
  version: text(200).optional(),
  url: z.url().max(2000).optional(),
  environment: text(200).optional(),
});
export type DeployPayload = z.infer<typeof DeployPayloadSchema>;

/** The deploy a valid payload reports. Without an id, the same fields sent again are the same deploy. */
export function deployFromPayload(p: DeployPayload, receivedAt: Date): DeployEvent {
  const fields = [p.service, p.namespace, p.version, p.url, p.environment].map((v) => v ?? '');
  const digest = createHash('sha256').update(JSON.stringify(fields)).digest('hex').slice(0, 32);
  return {
    id: `webhook:${p.id ?? digest}`,
    service: p.service,
    ...(p.namespace ? { namespace: p.namespace } : {}),
    ...(p.version ? { version: p.version } : {}),
    ...(p.url ? { url: p.url } : {}),
    ...(p.environment ? { environment: p.environment } : {}),
    source: 'webhook',
    receivedAt: receivedAt.toISOString(),
  };
}
