/**
 * The HTTPS certificate: the one in the data dir, or a self-signed one generated on first start
 * and kept there, so cbapi (which refuses http:// URLs) can connect with ssl_verify off or with
 * the certificate pinned. Replace tls/cert.pem and tls/key.pem to use your own.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import selfsigned from 'selfsigned';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../db/private-files.js';

export interface TlsMaterial {
  key: string;
  cert: string;
}

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

export function tlsFiles(dataDir: string): TlsFiles {
  return { certFile: join(dataDir, 'tls', 'cert.pem'), keyFile: join(dataDir, 'tls', 'key.pem') };
}

/**
 * The PEM of the certificate in the data dir, or undefined when there is none: a server started
 * without TLS (`--http`, or an app built for tests) never wrote one.
 */
export function servedCertificate(dataDir: string): string | undefined {
  try {
    return readFileSync(tlsFiles(dataDir).certFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export async function loadOrCreateCertificate(dataDir: string, host: string): Promise<TlsMaterial & { created: boolean }> {
  const { certFile, keyFile } = tlsFiles(dataDir);
  try {
    return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), created: false };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const names = new Set(['localhost', '127.0.0.1', '::1', host]);
  const altNames = [...names].map((name) => (isIP(name) ? { type: 7 as const, ip: name } : { type: 2 as const, value: name }));
  const notBeforeDate = new Date();
  const notAfterDate = new Date(notBeforeDate);
  notAfterDate.setFullYear(notAfterDate.getFullYear() + 10);
  const pems = await selfsigned.generate([{ name: 'commonName', value: host }], {
    keySize: 2048,
    algorithm: 'sha256',
    notBeforeDate,
    notAfterDate,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  makePrivateDir(join(dataDir, 'tls'));
  writeFileSync(keyFile, pems.private, { mode: PRIVATE_FILE_MODE });
  writeFileSync(certFile, pems.cert, { mode: PRIVATE_FILE_MODE });
  return { key: pems.private, cert: pems.cert, created: true };
}
