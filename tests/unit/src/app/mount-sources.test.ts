import { describe, expect, it } from 'vitest';
import { mountSources, startupWarnings } from '../../../../src/app/mount-sources.js';
import { loadConfig } from '../../../../src/config/load-config.js';
import { sources } from '../../../../sources/index.js';

// Issue 16, defect 12: `lestrade worker` warned that the Alertmanager webhook is unauthenticated,
// although a worker serves no HTTP. This test failed before the fix.
describe('start-up warnings', () => {
  const config = loadConfig({ OPENAI_API_KEY: 'k' }, undefined, sources);
  const alertmanager = mountSources(sources, config, { log: undefined as never, env: {} }).find(
    (m) => m.name === 'alertmanager',
  )!;
  const unauthenticated = /\/webhooks\/alertmanager accepts unauthenticated requests/;

  it('a process serving webhooks warns that the Alertmanager webhook is unauthenticated', () => {
    expect(startupWarnings(alertmanager, true)).toContainEqual(expect.stringMatching(unauthenticated));
  });

  it('a worker does not', () => {
    expect(startupWarnings(alertmanager, false).filter((w) => unauthenticated.test(w))).toEqual([]);
  });
});
