/** Remembers a successful lookup; a failed one is asked again next time. */
export function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () => {
    pending ??= fn().catch((err: unknown) => {
      pending = null;
      throw err;
    });
    return pending;
  };
}
