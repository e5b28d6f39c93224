/**
 * Typed errors. The class decides what happens next:
 * - RetryableError: try again later (the queue backs off, honouring retryAfterMs).
 * - PermanentError: give up now and keep the reason visible.
 * - InputError: the caller sent something bad; nothing changed.
 * - ConfigError: Lestrade is misconfigured; the message names the key.
 * - CancelledError: someone cancelled the investigation; nothing to retry, nothing failed.
 * - InterruptedError: this process is shutting down; the run goes back to the queue as it is, and
 *   another worker resumes it from its checkpoint (no attempt used).
 * - CheckpointError: saved state is from another version or damaged; resuming it would be wrong.
 */
export class LestradeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

export class RetryableError extends LestradeError {
  readonly retryAfterMs: number | undefined;
  /**
   * What the next attempt needs to carry on where this one stopped (e.g. a vendor's request id
   * for a write still being processed). The write-back job keeps it durably and hands it back,
   * whichever process makes the next attempt.
   */
  readonly resumeToken: string | undefined;
  constructor(message: string, options?: { cause?: unknown; retryAfterMs?: number; resumeToken?: string }) {
    super(message, options);
    this.retryAfterMs = options?.retryAfterMs;
    this.resumeToken = options?.resumeToken;
  }
}

export class PermanentError extends LestradeError {}

export class InputError extends LestradeError {
  /** Dotted path of the offending field, e.g. "alerts.0.fingerprint". */
  readonly field: string;
  constructor(field: string, message: string) {
    super(field ? `${field}: ${message}` : message);
    this.field = field;
  }
}

export class ConfigError extends LestradeError {}

export class CancelledError extends LestradeError {}

export class InterruptedError extends LestradeError {}

export class CheckpointError extends PermanentError {}

/**
 * The one rule for a failure nobody typed, used by the LLM error classifier and the worker alike:
 * a RetryableError or PermanentError keeps its class; a ConfigError or InputError is permanent
 * (trying again cannot fix configuration or input); anything else (a Redis blip, a dropped
 * connection, a malformed reply, a bug) is retryable, within queue.attempts, since a transient
 * cause is the likelier one and the attempt limit bounds what a bug costs.
 */
export function asTypedError(err: unknown, context?: string): RetryableError | PermanentError {
  if (err instanceof RetryableError || err instanceof PermanentError) return err;
  const message = `${context ? `${context}: ` : ''}${err instanceof Error ? err.message : String(err)}`;
  if (err instanceof ConfigError || err instanceof InputError) return new PermanentError(message, { cause: err });
  return new RetryableError(message, { cause: err });
}

/** Turns a zod error into a one-line "path: reason; path: reason" message. */
export function describeZodIssues(
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>,
): string {
  return issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.map(String).join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}
