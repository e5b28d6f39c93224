import { createHash } from 'node:crypto';

/** Every Redis key Lestrade writes, in one place. */
export const keys = {
  investigation: (id: string) => `lestrade:inv:${id}`,
  checkpoint: (id: string) => `lestrade:inv:${id}:checkpoint`,
  index: () => 'lestrade:invs',
  dedup: (source: string, identity: string) => `lestrade:dedup:${source}:${digest(identity)}`,
  /** The latest investigation of a fingerprint, for resolutions that carry a different identity. */
  latest: (source: string, fingerprint: string) => `lestrade:latest:${source}:${digest(fingerprint)}`,
};

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32);
}
