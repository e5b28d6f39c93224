import { describe, expect, it } from 'vitest';
import { rootCauseOf } from '../../../../src/recall/root-cause-of.js';

const RCA = [
  '## Alert explanation',
  '- api pods restart',
  '',
  '## Key findings',
  '- OOMKilled 5 times',
  '',
  '## Root cause',
  '- The memory limit (256Mi) is below the heap the new release needs.',
  '- It started with release 1.4.',
  '',
  '### Evidence',
  'kube_pod_container_status_last_terminated_reason',
  '',
  '## Next steps',
  '- Raise the limit',
].join('\n');

describe('rootCauseOf: the root-cause section of an RCA', () => {
  it('takes the text under "## Root cause" up to the next heading of its level, keeping deeper headings', () => {
    expect(rootCauseOf(RCA)).toBe(
      [
        '- The memory limit (256Mi) is below the heap the new release needs.',
        '- It started with release 1.4.',
        '',
        '### Evidence',
        'kube_pod_container_status_last_terminated_reason',
      ].join('\n'),
    );
  });

  it('finds the heading at any level and in any case, "Root causes" and bold headings too', () => {
    expect(rootCauseOf('# Summary\nx\n# ROOT CAUSES\nA full disk.\n# Next\ny')).toBe('A full disk.');
    expect(rootCauseOf('### **Root cause**\nDNS.\n### Next steps\nz')).toBe('DNS.');
  });

  it('is the last section when nothing follows it', () => {
    expect(rootCauseOf('## Key findings\na\n## Root cause\nThe cert expired.\n')).toBe('The cert expired.');
  });

  it('is the whole RCA when it has no root-cause section, or the section is empty', () => {
    expect(rootCauseOf('  The model answered in prose.  ')).toBe('The model answered in prose.');
    expect(rootCauseOf('## Root cause\n## Next steps\nwait')).toBe('## Root cause\n## Next steps\nwait');
  });

  it('does not take a heading that only mentions a root cause later in its text', () => {
    expect(rootCauseOf('## Why no root cause\nunknown\n## Root cause\nA bad deploy.')).toBe('A bad deploy.');
  });
});
