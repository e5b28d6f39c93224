import fc from 'fast-check';

/**
 * Every property test in the run uses one seed, so CI is deterministic: FC_SEED=<n> replays the
 * seed a failure printed; FC_SEED=random explores new cases (print and keep the seed it fails with).
 */
const DEFAULT_SEED = 20_261_130;
const setting = process.env.FC_SEED;
if (setting !== 'random') fc.configureGlobal({ seed: setting ? Number(setting) : DEFAULT_SEED });
