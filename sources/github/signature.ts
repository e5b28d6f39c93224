import { Webhooks } from '@octokit/webhooks';
import { splitTokens } from '../../src/check-credentials.js';
import type { Delivery, Verdict } from '../../src/registration/source.js';

/**
 * verifyAndReceive checks the signature first and throws this only when it does not match;
 * anything it throws later (a body that is not JSON, or JSON that is not an event object) comes
 * after a good signature, and the route answers 400 for such a body, not 401.
 */
const SIGNATURE_MISMATCH = /signature does not match/;

/**
 * Checks X-Hub-Signature-256 over the raw body against every configured secret (the first, then
 * the others, so a secret can be rotated). With no secret configured nothing passes: the webhook
 * is never open.
 */
export function signatureVerifier(secretList: string | undefined): (delivery: Delivery) => Promise<Verdict> {
  const [first, ...additionalSecrets] = splitTokens(secretList);
  if (!first) {
    return async () => ({
      ok: false,
      reason: 'no webhook secret configured (GITHUB_WEBHOOK_SECRET): every delivery is refused',
    });
  }
  const webhooks = new Webhooks({ secret: first, additionalSecrets });
  return async ({ headers, rawBody }) => {
    const signature = headers['x-hub-signature-256'];
    if (!signature) return { ok: false, reason: 'no X-Hub-Signature-256 header' };
    try {
      // No handlers are registered: receiving only verifies.
      await webhooks.verifyAndReceive({
        id: headers['x-github-delivery'] ?? '',
        name: headers['x-github-event'] || 'unknown',
        payload: rawBody.toString('utf8'),
        signature,
      });
      return { ok: true };
    } catch (err) {
      const messages = [(err as Error).message, ...((err as { errors?: Error[] }).errors ?? []).map((e) => e.message)];
      if (messages.some((m) => SIGNATURE_MISMATCH.test(m)))
        return { ok: false, reason: 'X-Hub-Signature-256 does not match the body' };
      return { ok: true };
    }
  };
}
