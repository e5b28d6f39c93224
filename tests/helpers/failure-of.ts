/** What the promise was rejected with; a promise that resolves instead fails the test ("expected a failure"). */
export const failureOf = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );

/** What the function threw; a function that returns instead fails the test ("expected a failure"). */
export function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error('expected a failure');
}
