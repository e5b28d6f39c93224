import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../../../src/config/load-config.js';
import { buildConfigSchema } from '../../../../src/config/schema.js';
import { toolsetConfig } from '../../../../src/config/toolset-config.js';
import type { ToolsetRegistration } from '../../../../src/registration/toolset.js';

// The engine's config knows no toolset of a vendor's: each one's settings and variables arrive with
// its registration (toolsets/<name>/registration.ts), as sources' do.

const file = (text: string) => {
  const p = join(mkdtempSync(join(tmpdir(), 'lestrade-toolset-slices-')), 'config.yaml');
  writeFileSync(p, text);
  return p;
};

const acme: ToolsetRegistration<{ url?: string; limit: number }> = {
  name: 'acme',
  configSchema: z.strictObject({ url: z.url().optional(), limit: z.int().min(1).default(5) }),
  env: [['ACME_URL', ['url'], 'string']],
  settingsEnv: [['ACME_ENABLED', ['enabled'], 'boolean']],
  create: () => [],
};

describe('the config schema without toolset registrations', () => {
  it('has only the generic toolset keys, and no top-level key of a toolset', () => {
    const shape = buildConfigSchema([], [], []).shape;
    expect(Object.keys(shape.toolsets.unwrap().shape).sort()).toEqual(['dirs', 'settings']);
    expect(Object.keys(shape)).not.toContain('mcp');
    expect(Object.keys(shape)).not.toContain('runbooks');
  });

  it("refuses a vendor's toolset key in the file and ignores its variables", () => {
    expect(() => loadConfig({}, file('toolsets:\n  prometheus:\n    url: http://p:9090\n'))).toThrow(
      /toolsets: Unrecognized key: "prometheus"/,
    );
    const config = loadConfig({ PROMETHEUS_URL: 'http://p:9090', LESTRADE_BASH_ENABLED: 'true' });
    expect(config.toolsets).toEqual({ dirs: [], settings: {} });
  });
});

describe('a toolset registration handed to the loader', () => {
  it('puts its settings under toolsets.<name>, filled from its variables, and its switch in settings', () => {
    const config = loadConfig({ ACME_URL: 'http://acme:1', ACME_ENABLED: 'off' }, undefined, [], [], [acme]);
    expect(config.toolsets.acme).toEqual({ url: 'http://acme:1', limit: 5 });
    expect(config.toolsets.settings.acme).toEqual({ enabled: false });
    expect(toolsetConfig(config, acme)).toEqual({ url: 'http://acme:1', limit: 5 });
  });

  it('names the variable, else the file and key, of a bad value', () => {
    expect(() => loadConfig({ ACME_URL: 'nope' }, undefined, [], [], [acme])).toThrow(
      'invalid configuration: ACME_URL=nope sets toolsets.acme.url: ',
    );
    const p = file('toolsets:\n  acme:\n    limit: 0\n');
    expect(() => loadConfig({}, p, [], [], [acme])).toThrow(`${p}: toolsets.acme.limit: `);
    expect(() => loadConfig({ ACME_ENABLED: 'maybe' }, undefined, [], [], [acme])).toThrow(
      'invalid configuration (environment): ACME_ENABLED: expected true or false, got "maybe"',
    );
  });

  it('keeps a top-level key where it says so, and hands prepare its raw settings first', () => {
    const seen: unknown[] = [];
    const prepare = vi.fn((raw: unknown) => {
      seen.push(structuredClone(raw));
      (raw as { url: string }).url = 'http://prepared:2';
    });
    const top = { ...acme, configKey: 'acme', prepare };
    const p = file('acme:\n  url: http://file:1\n');
    const config = loadConfig({}, p, [], [], [top]);
    expect(prepare).toHaveBeenCalledWith(expect.anything(), {}, p);
    expect(seen).toEqual([{ url: 'http://file:1' }]);
    expect(toolsetConfig(config, top)).toEqual({ url: 'http://prepared:2', limit: 5 });
    expect(config.toolsets).toEqual({ dirs: [], settings: {} });
  });

  it("refuses a top-level key that is the engine's own", () => {
    expect(() => buildConfigSchema([], [], [{ ...acme, configKey: 'server' }])).toThrow(/"server"/);
  });

  it('gives a config loaded without the registration its defaults', () => {
    expect(toolsetConfig(loadConfig({}), acme)).toEqual({ limit: 5 });
  });
});
