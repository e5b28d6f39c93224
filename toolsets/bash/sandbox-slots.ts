/** A count of sandboxes running at once, shared by every bash run of the process (issue 30, defect 7). */
export interface SandboxSlots {
  /** Waits until n slots are free (in arrival order), takes them, and returns their release. */
  acquire(n: number, signal?: AbortSignal): Promise<() => void>;
  /** Slots in use now. */
  inUse(): number;
}

interface Waiter {
  n: number;
  grant: () => void;
}

/** Weighted and first come, first served: a line of 5 stages is not starved by lines of 1. */
export function createSandboxSlots(limit: () => number): SandboxSlots {
  let used = 0;
  const queue: Waiter[] = [];
  const pump = () => {
    while (queue.length && used + queue[0]!.n <= limit()) {
      const w = queue.shift()!;
      used += w.n;
      w.grant();
    }
  };
  const acquire = (n: number, signal?: AbortSignal) =>
    new Promise<() => void>((resolve, reject) => {
      signal?.throwIfAborted();
      // A line never needs more than the whole count (the stage cap is checked against it at start-up).
      const take = Math.min(n, limit());
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        used -= take;
        pump();
      };
      const waiter: Waiter = {
        n: take,
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(release);
        },
      };
      const onAbort = () => {
        const at = queue.indexOf(waiter);
        if (at >= 0) queue.splice(at, 1);
        reject(signal!.reason instanceof Error ? signal!.reason : new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.push(waiter);
      pump();
    });
  return { acquire, inUse: () => used };
}

let limitNow = 16;
const shared = createSandboxSlots(() => limitNow);

/** The process's one count; the last bash toolset built sets its limit (toolsets.bash.maxSandboxes). */
export function processSandboxSlots(limit: number): SandboxSlots {
  limitNow = limit;
  return shared;
}
