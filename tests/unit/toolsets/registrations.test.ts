import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config/load-config.js';
import { toolsetConfig } from '../../../src/config/toolset-config.js';
import { builtinToolsets, runbooksConfig, toolsets } from '../../../toolsets/index.js';
import { bashToolset } from '../../../toolsets/bash/registration.js';
import { mcpToolsets } from '../../../toolsets/mcp/registration.js';
import { prometheusToolset } from '../../../toolsets/prometheus/registration.js';

// Every built-in toolset is its folder plus one line in toolsets/index.ts: its settings, the
// variables that fill them and how it is built travel in its registration.

const load = (env: Record<string, string>, file?: string) => loadConfig(env, file, [], [], toolsets);

describe('the toolset registrations', () => {
  it('are named once each, and build the built-in toolsets in their order', () => {
    expect(new Set(toolsets.map((t) => t.name)).size).toBe(toolsets.length);
    expect(builtinToolsets(load({})).map((t) => t.name)).toEqual([
      'prometheus',
      'alertmanager',
      'loki',
      'kubernetes_changes',
      'kubernetes_remediation',
      'github_changes',
      'bash',
      'runbooks',
    ]);
  });

  it("bind their variables into their own settings, under the config keys users' files have", () => {
    const config = load({
      PROMETHEUS_URL: 'http://prom:9090',
      LESTRADE_BASH_ENABLED: 'yes',
      LESTRADE_BASH_SANDBOX: 'none',
      LESTRADE_RUNBOOKS_DIR: '/rb/a, /rb/b',
      LESTRADE_RUNBOOK_HOSTS: 'wiki.example.com',
    });
    expect(toolsetConfig(config, prometheusToolset)).toEqual({ url: 'http://prom:9090', headers: {} });
    expect(config.toolsets.settings.bash).toEqual({ enabled: true });
    expect(toolsetConfig(config, bashToolset)).toMatchObject({ sandbox: 'none', maxStages: 8 });
    expect(runbooksConfig(config)).toMatchObject({ dirs: ['/rb/a', '/rb/b'], allowedHosts: ['wiki.example.com'] });
    expect(config).toMatchObject({ runbooks: { dirs: ['/rb/a', '/rb/b'] }, mcp: { servers: [] } });
  });

  it('name the variable that set a bad value', () => {
    expect(() => load({ LESTRADE_BASH_SANDBOX: 'docker' })).toThrow(
      /LESTRADE_BASH_SANDBOX=docker sets toolsets\.bash\.sandbox: /,
    );
  });

  it('keep the remediation toolset off by default, and refuse it on without a context of its own', () => {
    expect(builtinToolsets(load({})).find((t) => t.name === 'kubernetes_remediation')?.enabled).toBe(false);
    const file = join(mkdtempSync(join(tmpdir(), 'remediation-')), 'lestrade.yaml');
    writeFileSync(file, 'toolsets:\n  kubernetes_remediation:\n    enabled: true\n    namespaces: [shop]\n');
    expect(() => load({}, file)).toThrow(
      /toolsets\.kubernetes_remediation\.context: set toolsets\.kubernetes_remediation\.context/,
    );
  });

  it("fill an MCP server's ${VAR} from the environment, naming the key of one not set", () => {
    const servers = [{ name: 'docs', url: 'http://mcp:1/mcp', headers: { authorization: 'Bearer ${DOCS_TOKEN}' } }];
    const raw = { servers: structuredClone(servers) };
    mcpToolsets.prepare!(raw, { DOCS_TOKEN: 't-1' });
    expect(raw.servers[0]!.headers.authorization).toBe('Bearer t-1');
    expect(() => mcpToolsets.prepare!({ servers: structuredClone(servers) }, {}, 'lestrade.yaml')).toThrow(
      'invalid configuration (lestrade.yaml): mcp.servers.0.headers.authorization: environment variable DOCS_TOKEN is not set',
    );
  });
});
