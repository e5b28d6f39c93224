import { CancelledError } from '../../src/errors.js';
import type { LimiterClock } from '../../src/llm/rate-limiter.js';

interface Sleeper {
  at: number;
  wake: () => void;
}

/**
 * Time the test drives: now() moves only when the test says, and sleep() resolves when the clock
 * reaches its end. `runUntil` advances to the next sleeper's time whenever every task still
 * running is asleep, so a minute of waiting on a limiter takes milliseconds and never races a wall clock.
 */
export class ManualClock implements LimiterClock {
  private sleepers: Sleeper[] = [];

  constructor(public t = Date.UTC(2026, 11, 2, 5, 0, 0)) {}

  now = (): number => this.t;

  sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new CancelledError('cancelled'));
      const sleeper: Sleeper = { at: this.t + Math.max(0, ms), wake: resolve };
      signal?.addEventListener('abort', () => {
        this.sleepers = this.sleepers.filter((s) => s !== sleeper);
        reject(new CancelledError('cancelled'));
      });
      this.sleepers.push(sleeper);
    });

  get asleep(): number {
    return this.sleepers.length;
  }

  /** Moves to the earliest sleeper's time and wakes every sleeper due then. */
  advance(): void {
    if (this.sleepers.length === 0) return;
    this.t = Math.max(this.t, Math.min(...this.sleepers.map((s) => s.at)));
    const due = this.sleepers.filter((s) => s.at <= this.t);
    this.sleepers = this.sleepers.filter((s) => s.at > this.t);
    for (const s of due) s.wake();
  }

  /**
   * Drives the clock until `running()` is 0: whenever every running task sleeps (checked on the
   * event loop, while Redis and HTTP answers arrive), time jumps to the next wake-up. Fails after
   * `maxSteps` jumps, or if the tasks stay busy for `stallMs` of real time without sleeping.
   */
  async runUntil(running: () => number, maxSteps = 100_000, stallMs = 20_000): Promise<void> {
    let steps = 0;
    let busySince = performance.now();
    while (running() > 0) {
      if (this.sleepers.length > 0 && this.sleepers.length >= running()) {
        this.advance();
        busySince = performance.now();
        if (++steps > maxSteps) throw new Error(`clock advanced ${maxSteps} times and tasks still run`);
      } else if (performance.now() - busySince > stallMs) {
        throw new Error(`${running()} tasks running, ${this.sleepers.length} asleep, for ${stallMs} ms`);
      }
      await new Promise((r) => setImmediate(r));
    }
  }
}
