import { readJson } from '../../src/read-json.js';
import type { SourceRegistration } from '../../src/registration/source.js';
import { deployAuth } from './auth.js';
import { DEPLOY_ENV, DEPLOY_FIX, DeployConfigSchema, type DeployConfig } from './config.js';
import { fluxOutcome, FluxEventSchema, isFluxEvent } from './flux.js';
import { deployFromPayload, DeployPayloadSchema } from './payload.js';

/**
 * POST /webhooks/deploy: a deploy finished (Argo CD, a pipeline's last step), reported with a small JSON
 * payload, or Flux's own event (its `generic` provider), and a bearer token or an HMAC signature
 * (docs/checks-deploys.md). No issue comes of it: the
 * deploy is told once to the health checks (afterDeploy), through the engine's webhook route.
 */
export const deploy: SourceRegistration<DeployConfig> = {
  name: 'deploy',
  configSchema: DeployConfigSchema,
  env: DEPLOY_ENV,
  disabledReason: () => null,
  webhookWarnings: (c) =>
    c.token || c.secret ? [] : [`/webhooks/deploy refuses every deploy notification (401): ${DEPLOY_FIX}`],
  webhook: (c) => ({
    ...deployAuth(c),
    handle: (body) =>
      isFluxEvent(body)
        ? fluxOutcome(readJson(body, FluxEventSchema), new Date())
        : { kind: 'deploy', deploy: deployFromPayload(readJson(body, DeployPayloadSchema), new Date()) },
  }),
};
