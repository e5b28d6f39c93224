import type { ApiOptions } from './api-client.js';
import { callApi } from './api-client.js';

/** `lestrade forget <id>`: DELETE /api/memory/:id; a 404 (nothing remembered) fails with the API's words. */
export async function forgetCommand(api: ApiOptions, id: string, out: NodeJS.WritableStream): Promise<void> {
  await callApi<null>(api, `/api/memory/${encodeURIComponent(id)}`, undefined, 'DELETE');
  out.write(`forgotten: investigation ${id} is no longer offered as a similar past incident\n`);
}
