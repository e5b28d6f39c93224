import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type Daemon } from '../../../helpers/child-process.js';
import { amFixture } from '../../../helpers/fixtures.js';
import { freePort } from '../../../helpers/free-port.js';
import { requireBinary } from '../../../helpers/require-binary.js';
import { getJson, jobsDispatched, startTestService } from '../../../helpers/service.js';

/** A managed Redis as Lestrade meets it: TLS (rediss://) with a private CA, and an ACL user with a password. */
let dir: string;
let daemon: Daemon;
let port: number;

function openssl(...args: string[]) {
  execFileSync(requireBinary('openssl'), args, { cwd: dir, stdio: 'ignore' });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'lestrade-tls-'));
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=lestrade-test-ca',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
  );
  writeFileSync(join(dir, 'san.cnf'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'san.cnf',
    '-out',
    'server.pem',
  );
  port = await freePort();
  const ca = readFileSync(join(dir, 'ca.pem'));
  daemon = await startDaemon(
    requireBinary('redis-server'),
    [
      '--port',
      '0',
      '--tls-port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--tls-cert-file',
      join(dir, 'server.pem'),
      '--tls-key-file',
      join(dir, 'server.key'),
      '--tls-ca-cert-file',
      join(dir, 'ca.pem'),
      '--tls-auth-clients',
      'no',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--save',
      '',
      '--user',
      'default',
      'off',
      '--user',
      'lestrade',
      'on',
      '>tls-acl-pass',
      '~{lestrade}:*',
      '~lestrade:checkpoint:*',
      '&*',
      '+@all',
    ],
    async () => {
      const probe = new Redis({
        host: '127.0.0.1',
        port,
        username: 'lestrade',
        password: 'tls-acl-pass',
        tls: { ca },
        lazyConnect: true,
        retryStrategy: () => null,
        maxRetriesPerRequest: 0,
      });
      probe.on('error', () => {});
      try {
        await probe.connect();
        return (await probe.ping()) === 'PONG';
      } catch {
        return false;
      } finally {
        probe.disconnect();
      }
    },
  );
});
afterAll(async () => {
  await daemon?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('Redis over TLS with an ACL user', () => {
  it("takes webhooks through rediss:// verified against redis.tls.caFile, every key within the user's patterns", async () => {
    const url = `rediss://lestrade:tls-acl-pass@127.0.0.1:${port}`;
    const svc = await startTestService(url, { LOG_LEVEL: 'warn', LESTRADE_REDIS_TLS_CA_FILE: join(dir, 'ca.pem') });
    try {
      const res = await fetch(`${svc.base}/webhooks/alertmanager`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(amFixture('group-next').body),
      });
      expect(res.status).toBe(200);
      expect((await res.json()).queued).toHaveLength(2);
      const admin = new Redis(url, { tls: { ca: readFileSync(join(dir, 'ca.pem')) } });
      await jobsDispatched(admin);
      expect(await admin.zcard('{lestrade}:bull:investigations:prioritized')).toBe(2);
      admin.disconnect();
      expect((await getJson(`${svc.base}/readyz`)).body.checks.redis).toBe('ok');
      expect(JSON.stringify(svc.logs)).not.toContain('tls-acl-pass');
    } finally {
      await svc.close();
    }
  });
});
