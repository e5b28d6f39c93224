import { describe, expect, it } from 'vitest';
import { checkToolsetWarnings } from '../../../../src/checks/check-toolsets.js';
import { CheckSchema } from '../../../../src/config/checks-schema.js';

const check = (name: string, toolsets?: string[]) =>
  CheckSchema.parse({ name, question: 'is it healthy?', everySeconds: 900, ...(toolsets ? { toolsets } : {}) });

describe('checkToolsetWarnings', () => {
  const statuses = [
    { name: 'prometheus', state: 'enabled' },
    { name: 'kubernetes', state: 'disabled', reason: 'prerequisite not met: no kubeconfig' },
  ];

  it('names a toolset no toolset has, and one not enabled, per check', () => {
    expect(
      checkToolsetWarnings(
        [check('checkout', ['prometheus', 'promethues']), check('pods', ['kubernetes']), check('all')],
        statuses,
      ),
    ).toEqual([
      "check checkout: toolsets names promethues, which is no toolset (known: prometheus, kubernetes); fix the check's toolsets",
      'check pods: toolsets names kubernetes, which is disabled (prerequisite not met: no kubeconfig); its runs are offered none of its tools',
    ]);
  });

  it('says nothing of enabled toolsets, and names none known when there are none', () => {
    expect(checkToolsetWarnings([check('checkout', ['prometheus'])], statuses)).toEqual([]);
    expect(checkToolsetWarnings([check('checkout', ['x'])], [])).toEqual([
      "check checkout: toolsets names x, which is no toolset (known: none); fix the check's toolsets",
    ]);
  });
});
