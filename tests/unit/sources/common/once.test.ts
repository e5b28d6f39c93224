import { describe, expect, it } from 'vitest';
import { once } from '../../../../sources/common/once.js';

describe('once', () => {
  it('asks once and answers every later call with the same value', async () => {
    let asked = 0;
    const get = once(async () => ++asked);
    expect(await get()).toBe(1);
    expect(await get()).toBe(1);
    expect(asked).toBe(1);
  });

  it('asks again after a failure, and keeps the first success', async () => {
    let asked = 0;
    const get = once(async () => {
      asked += 1;
      if (asked === 1) throw new Error('down');
      return asked;
    });
    await expect(get()).rejects.toThrow('down');
    expect(await get()).toBe(2);
    expect(await get()).toBe(2);
    expect(asked).toBe(2);
  });

  it('shares one pending lookup between callers that ask at the same time', async () => {
    let asked = 0;
    const get = once(async () => ++asked);
    expect(await Promise.all([get(), get()])).toEqual([1, 1]);
    expect(asked).toBe(1);
  });
});
