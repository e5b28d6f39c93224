/**
 * `make` once per config object, so the webhook, the writer, pull mode and the pollers of one
 * config share one client (its pacing and what it looked up). A config no longer used lets its
 * client go (a WeakMap). Later calls' other arguments are not looked at; a failed `make` is tried again.
 */
export function perConfig<C extends object, A extends unknown[], T>(
  make: (config: C, ...rest: A) => T,
): (config: C, ...rest: A) => T {
  const made = new WeakMap<C, T>();
  return (config, ...rest) => {
    if (made.has(config)) return made.get(config) as T;
    const value = make(config, ...rest);
    made.set(config, value);
    return value;
  };
}
