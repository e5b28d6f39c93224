import { describe, expect, it } from 'vitest';
import { shortIds, table } from '../../../cli/list-command.js';

const A = 'bb76f41a-0000-4000-8000-00000000000a';
const B = 'bb76f41a-1111-4000-8000-00000000000b';
const C = '0c1d2e3f-2222-4000-8000-00000000000c';

describe('lestrade list', () => {
  it('shows each id by its first 8 characters, more when two listed ids share them', () => {
    expect(shortIds([A, C])).toEqual(['bb76f41a', '0c1d2e3f']);
    expect(shortIds([A, B, C])).toEqual(['bb76f41a-0', 'bb76f41a-1', '0c1d2e3f-2']);
    expect(shortIds([A, A])).toEqual(['bb76f41a', 'bb76f41a']);
    expect(shortIds([])).toEqual([]);
  });

  it('prints the short id in the table', () => {
    const row = { source: 'alertmanager', title: 'Disk full', severity: 'critical', status: 'completed' };
    const text = table([{ id: C, createdAt: '2026-12-07T10:00:00.000Z', ...row }], undefined);
    expect(text.split('\n')[1]).toMatch(
      /^0c1d2e3f {2}completed {2}critical {2}alertmanager {2}2026-12-07 10:00:00 {2}Disk full$/,
    );
  });
});
