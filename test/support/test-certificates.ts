import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A throwaway certificate authority made with the openssl CLI, with a server certificate for
 * 127.0.0.1 / localhost and client certificates whose CN names a principal. P-256 keys: quick to make.
 */
export class TestCertificates {
  private constructor(readonly dir: string) {}

  static create(dir: string): TestCertificates {
    const certs = new TestCertificates(dir);
    certs.openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      certs.path('ca.key'),
      '-out',
      certs.path('ca.crt'),
      '-subj',
      '/CN=Cohort test CA',
      '-days',
      '2',
    );
    writeFileSync(certs.path('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
    certs.issue('server', 'localhost', 'server.ext');
    return certs;
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  read(name: string): Buffer {
    return readFileSync(this.path(name));
  }

  /** `<name>.crt` / `<name>.key` signed by the CA, with subject CN `cn`. */
  issue(name: string, cn: string, extFile?: string): { cert: Buffer; key: Buffer } {
    this.openssl(
      'req',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      this.path(`${name}.key`),
      '-out',
      this.path(`${name}.csr`),
      '-subj',
      `/CN=${cn}`,
    );
    this.openssl(
      'x509',
      '-req',
      '-in',
      this.path(`${name}.csr`),
      '-CA',
      this.path('ca.crt'),
      '-CAkey',
      this.path('ca.key'),
      '-CAcreateserial',
      '-out',
      this.path(`${name}.crt`),
      '-days',
      '2',
      ...(extFile ? ['-extfile', this.path(extFile)] : []),
    );
    return { cert: this.read(`${name}.crt`), key: this.read(`${name}.key`) };
  }

  private openssl(...args: string[]): void {
    execFileSync('openssl', args, { stdio: 'pipe' });
  }
}
