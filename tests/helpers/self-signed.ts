import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { requireBinary } from './require-binary.js';

/** A self-signed certificate for 127.0.0.1 (real openssl), written into dir, as a server's would be checked. */
export function selfSigned(dir: string): { key: string; cert: string; certFile: string } {
  execFileSync(
    requireBinary('openssl'),
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      'key.pem',
      '-out',
      'cert.pem',
    ],
    { cwd: dir, stdio: 'ignore' },
  );
  const certFile = join(dir, 'cert.pem');
  return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}
