/**
 * Identities this process saw claimed recently, most recent last, at most `max`: a repeat of one is
 * sent to the claim script without its record (see claim-many.ts). Only a hint: Redis decides.
 */
export class KnownIdentities {
  private readonly seen = new Map<string, true>();

  constructor(private readonly max: number) {}

  has(source: string, identity: string): boolean {
    return this.seen.has(`${source}\u0000${identity}`);
  }

  add(source: string, identity: string): void {
    const key = `${source}\u0000${identity}`;
    this.seen.delete(key);
    this.seen.set(key, true);
    if (this.seen.size > this.max) this.seen.delete(this.seen.keys().next().value!);
  }
}
