import { createHash } from 'node:crypto';

/** Every Redis key Lestrade writes, in one place. */
export const keys = {
  investigation: (id: string) => `lestrade:inv:${id}`,
  checkpoint: (id: string) => `lestrade:inv:${id}:checkpoint`,
  index: () => 'lestrade:invs',
  dedup: (source: string, identity: string) =>
    `lestrade:dedup:${source}:${createHash('sha256').update(identity).digest('hex').slice(0, 32)}`,
};
