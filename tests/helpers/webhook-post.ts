import type { Json } from './investigations-api.js';
import type { TestService } from './service.js';

/**
 * POSTs a webhook body to the service's /webhooks/<source> as the vendor sends it: the raw text
 * (bytes as given), JSON content type, and `headers` (a token, a signature). Returns the status
 * and the parsed answer.
 */
export async function postWebhook(
  svc: TestService,
  source: string,
  text: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${svc.base}/webhooks/${source}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: text,
  });
  return { status: res.status, body: (await res.json()) as Json };
}
