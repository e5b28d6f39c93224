import { describe, expect, it } from 'vitest';
import { createSandboxSlots } from '../../../../toolsets/bash/sandbox-slots.js';

const tick = () => new Promise((r) => setImmediate(r));

describe('sandbox slots: a weighted, first-come count of sandboxes running at once', () => {
  it('holds a line until its stages fit, in arrival order, and frees them on release', async () => {
    const slots = createSandboxSlots(() => 4);
    const first = await slots.acquire(3);
    const order: string[] = [];
    const big = slots.acquire(2).then((r) => (order.push('big'), r));
    const small = slots.acquire(1).then((r) => (order.push('small'), r));
    await tick();
    expect(order).toEqual([]); // 3 + 2 > 4, and the 1 waits behind the 2 (no starving of longer lines)
    expect(slots.inUse()).toBe(3);
    first();
    first(); // a second release changes nothing
    await tick();
    expect(order).toEqual(['big', 'small']);
    expect(slots.inUse()).toBe(3);
    (await big)();
    (await small)();
    expect(slots.inUse()).toBe(0);
  });

  it('takes at most the whole count for a longer line, and gives up waiting on abort', async () => {
    const slots = createSandboxSlots(() => 2);
    const all = await slots.acquire(5);
    expect(slots.inUse()).toBe(2);
    const ac = new AbortController();
    const waiting = slots.acquire(1, ac.signal);
    ac.abort(new Error('run cancelled'));
    await expect(waiting).rejects.toThrow('run cancelled');
    all();
    expect(slots.inUse()).toBe(0);
    (await slots.acquire(2))();
  });
});
