import { z } from 'zod';
import type { EnvBinding } from '../../src/registration/source.js';

export const DeployConfigSchema = z.strictObject({
  /** Bearer token(s) a notification may carry (`Authorization: Bearer <token>`); comma-separate several to rotate. */
  token: z.string().min(1).optional(),
  /** HMAC-SHA256 secret(s) for `X-Lestrade-Signature-256: sha256=<hex>` over the raw body; comma-separated to rotate. */
  secret: z.string().min(1).optional(),
});
export type DeployConfig = z.infer<typeof DeployConfigSchema>;

export const DEPLOY_ENV: EnvBinding[] = [
  ['LESTRADE_DEPLOY_WEBHOOK_TOKEN', ['token'], 'string'],
  ['LESTRADE_DEPLOY_WEBHOOK_SECRET', ['secret'], 'string'],
];

/** What to set when neither is: said in the 401 and at start-up. */
export const DEPLOY_FIX =
  'set LESTRADE_DEPLOY_WEBHOOK_TOKEN (sent as Authorization: Bearer) or LESTRADE_DEPLOY_WEBHOOK_SECRET (X-Lestrade-Signature-256)';
