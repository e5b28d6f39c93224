/** Where a fault applies: any request whose method (if given) and pathname (no query) match. */
export interface FaultMatch {
  method?: string;
  path: RegExp;
  /** How many matching requests it applies to (default 1). */
  times?: number;
}

export type FaultAction =
  /** Answer this instead; the handler does not run and nothing changes. */
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: unknown }
  /** Run the handler (the state changes), then destroy the socket without answering. */
  | { kind: 'accept-then-drop' }
  /** Run the handler (the state changes), then answer 502. */
  | { kind: 'accept-then-502' }
  /** Wait this long, then carry on normally. */
  | { kind: 'delay'; ms: number };

export type Fault = FaultMatch & FaultAction;

/** Faults are consumed in the order they were added: the first one matching a request applies. */
export class FaultQueue {
  private readonly queue: Array<Fault & { left: number }> = [];

  add(...faults: Fault[]): void {
    for (const f of faults) this.queue.push({ ...f, left: f.times ?? 1 });
  }

  /** Takes the fault for this request, if any, counting it down. */
  take(method: string, pathname: string): FaultAction | undefined {
    const i = this.queue.findIndex(
      (f) => (f.method === undefined || f.method.toUpperCase() === method.toUpperCase()) && f.path.test(pathname),
    );
    const f = this.queue[i];
    if (!f) return undefined;
    f.left -= 1;
    if (f.left <= 0) this.queue.splice(i, 1);
    return f;
  }

  /** Faults not yet used up (a test can assert they all fired). */
  get pending(): readonly Fault[] {
    return this.queue;
  }

  clear(): void {
    this.queue.length = 0;
  }
}
