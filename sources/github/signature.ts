import { Webhooks } from '@octokit/webhooks';
import { splitTokens } from '../../src/http/check-credentials.js';
import type { Delivery, Verdict } from '../../src/source.js';

/** verifyAndReceive parses only once the signature matched, so this error means a good signature. */
const SIGNED_BUT_NOT_JSON = /^Invalid JSON$/;

/**
 * Checks X-Hub-Signature-256 over the raw body against every configured secret (the first, then
 * the others, so a secret can be rotated). With no secret configured nothing passes: the webhook
 * is never open.
 */
export function signatureVerifier(secretList: string | undefined): (delivery: Delivery) => Promise<Verdict> {
  const [first, ...additionalSecrets] = splitTokens(secretList);
  if (!first) {
    return async () => ({ ok: false, reason: 'no webhook secret configured (GITHUB_WEBHOOK_SECRET): every delivery is refused' });
  }
  const webhooks = new Webhooks({ secret: first, additionalSecrets });
  return async ({ headers, rawBody }) => {
    const signature = headers['x-hub-signature-256'];
    if (!signature) return { ok: false, reason: 'no X-Hub-Signature-256 header' };
    try {
      // No handlers are registered: receiving only verifies.
      await webhooks.verifyAndReceive({
        id: headers['x-github-delivery'] ?? '', name: headers['x-github-event'] || 'unknown', payload: rawBody.toString('utf8'), signature,
      });
      return { ok: true };
    } catch (err) {
      // Fail closed: only a signed body that is not JSON passes, and the route then answers 400 for it.
      if (SIGNED_BUT_NOT_JSON.test((err as Error).message)) return { ok: true };
      return { ok: false, reason: 'X-Hub-Signature-256 does not match the body' };
    }
  };
}
