/** Something a test started: a service, scripted LLM or vendor double (close), or a server process (stop). */
export type Stoppable = { close(): Promise<unknown> } | { stop(): Promise<unknown> } | undefined;

/**
 * Stops each part in the order given, one after the other, passing over any that never started
 * (a beforeAll that failed half-way): the service before what it talks to, Redis last.
 */
export async function stopAll(...parts: Stoppable[]): Promise<void> {
  for (const part of parts) {
    if (!part) continue;
    await ('close' in part ? part.close() : part.stop());
  }
}
