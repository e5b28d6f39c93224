import { describe, expect, it } from 'vitest';
import { toolsetFolders, withoutServerPaths } from '../../../../src/dashboard/toolset-paths.js';
import type { ToolsetStatus } from '../../../../src/tools/types.js';

const SHIPPED = '/opt/lestrade/dist/toolsets/';
const folders = toolsetFolders(SHIPPED, ['/etc/lestrade/toolsets', 'local/yaml/']);

const status = (over: Partial<ToolsetStatus>): ToolsetStatus => ({
  name: 'kubernetes',
  origin: 'builtin',
  state: 'enabled',
  tools: [],
  ...over,
});

describe('withoutServerPaths (the toolsets page and /readyz)', () => {
  it('names a YAML file relative to the folder it was configured in, with the folder by its key', () => {
    const shown = withoutServerPaths(status({ origin: '/opt/lestrade/dist/toolsets/kubernetes.yaml' }), folders);
    expect(shown.origin).toBe('kubernetes.yaml (shipped)');
    expect(withoutServerPaths(status({ origin: '/etc/lestrade/toolsets/team/db.yml' }), folders).origin).toBe(
      'team/db.yml (toolsets.dirs[0])',
    );
    // A relative folder matches as configured (join normalises it, as loadYamlToolsets does).
    expect(withoutServerPaths(status({ origin: 'local/yaml/mine.yaml' }), folders).origin).toBe(
      'mine.yaml (toolsets.dirs[1])',
    );
  });

  it('one configured folder is called toolsets.dirs, unindexed', () => {
    const one = toolsetFolders(SHIPPED, ['/srv/ts']);
    expect(withoutServerPaths(status({ origin: '/srv/ts/a.yaml' }), one).origin).toBe('a.yaml (toolsets.dirs)');
  });

  it('takes the folder and file paths out of a reason and out of a failed folder’s name', () => {
    const bad = withoutServerPaths(
      status({
        name: '/etc/lestrade/toolsets',
        origin: '/etc/lestrade/toolsets',
        state: 'failed',
        reason: "cannot read folder: ENOENT: no such file or directory, scandir '/etc/lestrade/toolsets'",
      }),
      folders,
    );
    expect(bad).toMatchObject({
      name: 'toolsets.dirs[0]',
      origin: 'toolsets.dirs[0]',
      reason: "cannot read folder: ENOENT: no such file or directory, scandir 'toolsets.dirs[0]'",
    });
    const broken = withoutServerPaths(
      status({ origin: '/etc/lestrade/toolsets/x.yaml', reason: '/etc/lestrade/toolsets/x.yaml: tools: required' }),
      folders,
    );
    expect(broken.reason).toBe('x.yaml: tools: required');
    expect(JSON.stringify([bad, broken])).not.toMatch(/\/etc\/|\/opt\//);
  });

  it('leaves built-in and MCP origins, and paths outside the folders, as they are', () => {
    expect(withoutServerPaths(status({ origin: 'builtin' }), folders).origin).toBe('builtin');
    expect(withoutServerPaths(status({ origin: 'mcp' }), folders).origin).toBe('mcp');
    // A sibling whose name starts like a folder is not inside it.
    expect(withoutServerPaths(status({ origin: '/etc/lestrade/toolsets-old/a.yaml' }), folders).origin).toBe(
      '/etc/lestrade/toolsets-old/a.yaml',
    );
    const enabled = status({});
    expect(withoutServerPaths(enabled, folders)).toEqual(enabled);
  });
});
