import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveToolsets } from '../../../../src/tools/toolset-registry.js';
import { loadYamlToolset } from '../../../../src/tools/yaml-toolset.js';

const dir = mkdtempSync(join(tmpdir(), 'lestrade-approvals-'));
let n = 0;
function load(text: string) {
  const path = join(dir, `t${n++}.yaml`);
  writeFileSync(path, text);
  return loadYamlToolset(path, {});
}
const toolset = (name: string, tools: string[], extra = '') =>
  `name: ${name}\ndescription: d\n${extra}tools:\n${tools.map((t) => `  - { name: ${t}, description: d, command: [echo] }\n`).join('')}`;

describe('approvalRequired lists', () => {
  it('are read from the toolset file, empty when absent', () => {
    expect(load(toolset('k8s', ['get', 'delete'], 'approvalRequired: [delete]\n')).approvalRequired).toEqual([
      'delete',
    ]);
    expect(load(toolset('plain', ['get'])).approvalRequired).toEqual([]);
  });

  it('must name tools the toolset defines, naming the key', () => {
    expect(() => load(toolset('k8s', ['get'], 'approvalRequired: [delete]\n'))).toThrow(
      /approvalRequired: approvalRequired names a tool this toolset does not define/,
    );
  });

  it("join the toolsets' own lists and the settings', for enabled toolsets only", async () => {
    const k8s = load(toolset('k8s', ['get', 'delete', 'scale'], 'approvalRequired: [delete]\n'));
    const db = load(toolset('db', ['query', 'drop'], 'approvalRequired: [drop]\n'));
    const off = load(toolset('off', ['wipe'], 'enabled: false\napprovalRequired: [wipe]\n'));
    const r = await resolveToolsets(
      [k8s, db, off],
      { k8s: { approvalRequired: ['scale'] }, off: { approvalRequired: ['wipe'] } },
      {},
    );
    expect(r.approvalRequired).toEqual(['delete', 'scale', 'drop']);
    expect((await resolveToolsets([db], {}, {})).approvalRequired).toEqual(['drop']);
  });

  it('are empty for a built-in toolset that has none', async () => {
    const builtin = {
      name: 'builtin',
      description: 'd',
      origin: 'builtin',
      enabled: true,
      prerequisites: [],
      tools: [],
    };
    expect((await resolveToolsets([builtin], {}, {})).approvalRequired).toEqual([]);
  });

  it("come only from the settings' own keys, not inherited ones", async () => {
    const k8s = load(toolset('k8s', ['get', 'delete']));
    const inherited = Object.create({ k8s: { enabled: false, approvalRequired: ['delete'] } }) as Record<string, never>;
    const r = await resolveToolsets([k8s], inherited, {});
    expect(r.statuses[0]).toMatchObject({ state: 'enabled' });
    expect(r.approvalRequired).toEqual([]);
  });
});
