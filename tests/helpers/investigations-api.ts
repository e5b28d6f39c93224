import { getJson, waitFor, type TestService } from './service.js';

export type Json = Record<string, any>;

/** One investigation as the service's API shows it. */
export const getInvestigation = async (svc: TestService, id: string): Promise<Json> =>
  (await getJson(`${svc.base}/api/investigations/${id}`)).body as Json;

/** Every investigation the service lists. */
export const listInvestigations = async (svc: TestService): Promise<Json[]> =>
  (await getJson(`${svc.base}/api/investigations`)).body.items as Json[];

/** Waits (up to `timeoutMs`) until the investigation's first write-back is written; returns the investigation. */
export const writtenBack = (
  svc: TestService,
  id: string,
  timeoutMs: number,
  what = `write-back of ${id}`,
): Promise<Json> =>
  waitFor(
    what,
    async () => {
      const inv = await getInvestigation(svc, id);
      return inv.writeBacks?.[0]?.status === 'written' && inv;
    },
    timeoutMs,
  );
