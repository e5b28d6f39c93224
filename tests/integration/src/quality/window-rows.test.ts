import { describe, expect, it } from 'vitest';
import { windowIds } from '../../../../src/quality/window-rows.js';
import { redisClient } from '../../../helpers/redis-client.js';

const r = redisClient();

async function all(fromMs: number, toMs: number, batch: number): Promise<string[][]> {
  const pages: string[][] = [];
  for await (const ids of windowIds('idx', r.client, fromMs, toMs, batch)) pages.push(ids);
  return pages;
}

describe('windowIds', () => {
  it('pages by score, each id once, even when many share a score across page boundaries', async () => {
    const scores = [1, 1, 1, 1, 2, 2, 3, 3, 3, 4, 9];
    await r.client.zadd('idx', ...scores.flatMap((s, i) => [s, `id${String(i).padStart(2, '0')}`]));
    for (const batch of [1, 2, 3, 5, 100]) {
      const pages = await all(1, 4, batch);
      expect(pages.flat(), `batch ${batch}`).toEqual(
        scores.slice(0, 10).map((_s, i) => `id${String(i).padStart(2, '0')}`),
      );
      for (const page of pages) expect(page.length).toBeLessThanOrEqual(batch);
    }
  });

  it('gives nothing for an empty window', async () => {
    await r.client.zadd('idx', 5, 'a');
    expect(await all(6, 10, 10)).toEqual([]);
  });
});
