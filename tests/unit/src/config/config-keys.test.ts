import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/config/load-config.js';
import { ConfigError } from '../../../../src/errors.js';
import { sources } from '../../../../sources/index.js';

// Settings read around the validated configuration go through the one loader, with errors naming the key.

describe('the local Redis port', () => {
  it('is redis.localPort, 6380 unless LESTRADE_LOCAL_REDIS_PORT says otherwise', () => {
    expect(loadConfig({}, undefined, sources).redis.localPort).toBe(6380);
    expect(loadConfig({ LESTRADE_LOCAL_REDIS_PORT: '7001' }, undefined, sources).redis.localPort).toBe(7001);
  });

  it('refuses a typo or an impossible port, naming the variable or the key', () => {
    expect(() => loadConfig({ LESTRADE_LOCAL_REDIS_PORT: '63a0' })).toThrow(ConfigError);
    expect(() => loadConfig({ LESTRADE_LOCAL_REDIS_PORT: '63a0' })).toThrow(
      'LESTRADE_LOCAL_REDIS_PORT: expected an integer, got "63a0"',
    );
    expect(() => loadConfig({ LESTRADE_LOCAL_REDIS_PORT: '0' })).toThrow(/redis\.localPort: /);
    expect(() => loadConfig({ LESTRADE_LOCAL_REDIS_PORT: '70000' })).toThrow(/redis\.localPort: /);
  });
});
