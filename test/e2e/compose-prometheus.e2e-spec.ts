import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { appPerFile } from '../support/app-per-file';

jest.setTimeout(60_000);

const REPO_ROOT = join(__dirname, '../..');
const run = promisify(execFile);

interface Service {
  environment?: Record<string, string>;
  command?: string[];
  volumes?: string[];
}
interface Compose {
  services: Record<string, Service>;
  'x-cluster-env': Record<string, string>;
}
const compose = parse(readFileSync(join(REPO_ROOT, 'docker/compose.yml'), 'utf8'), { merge: true }) as Compose;
const prometheus = parse(readFileSync(join(REPO_ROOT, 'docker/observability/prometheus.yml'), 'utf8')) as {
  scrape_configs: { job_name: string; authorization?: { type?: string; credentials_file: string } }[];
};

/** Where a service mounts the `secrets` volume. */
function secretsMount(service: Service): string {
  const volume = service.volumes?.find((v) => v.startsWith('secrets:'));
  if (!volume) throw new Error('the service does not mount the secrets volume');
  return volume.split(':')[1];
}

/** This user instead of compose's fixed uids (1000, Prometheus's 65534), so the test needs no root. */
const me = `${process.getuid!()}:${process.getgid!()}`;

/**
 * docker/compose.yml's Prometheus set-up without Docker: the `secrets` service's generator with its
 * environment, a node with the cluster's authentication settings, the `prometheus-acl` service's
 * command, then a scrape with the credentials file prometheus.yml names: /metrics answers it.
 */
describe("compose's Prometheus scrapes a node with authentication on (e2e)", () => {
  const secrets = mkdtempSync(join(tmpdir(), 'cohort-compose-secrets-'));
  const generator = compose.services.secrets;
  const nodeSecrets = secretsMount(compose.services['node-0']);
  const inSecrets = (containerPath: string, mount: string) => join(secrets, relative(mount, containerPath));
  execFileSync(process.execPath, [join(REPO_ROOT, generator.command![1]), secrets], {
    env: {
      ...process.env,
      ...generator.environment,
      SECRETS_OWNER: me,
      TOKEN_OWNERS: generator.environment!.TOKEN_OWNERS.replace(/=\d+:\d+/g, `=${me}`),
    },
  });
  const cluster = compose['x-cluster-env'];
  const app = appPerFile({
    env: {
      AUTH_TOKENS_FILE: inSecrets(cluster.AUTH_TOKENS_FILE, nodeSecrets),
      SUPER_USERS: cluster.SUPER_USERS,
    },
  });
  afterAll(() => rmSync(secrets, { recursive: true, force: true }));

  const scrape = prometheus.scrape_configs.find((c) => c.job_name === 'cohort')!;
  const tokenFile = () => inSecrets(scrape.authorization!.credentials_file, secretsMount(compose.services.prometheus));
  const metricsWith = (token?: string) =>
    fetch(`${app.url}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  it("writes Prometheus's token file for its user alone, beside the nodes' tokens", () => {
    expect(scrape.authorization?.type ?? 'Bearer').toBe('Bearer');
    const stat = statSync(tokenFile());
    expect(stat.mode & 0o777).toBe(0o600);
    const tokens = JSON.parse(readFileSync(join(secrets, 'tokens.json'), 'utf8')) as { principals: { name: string }[] };
    expect(tokens.principals.map((p) => p.name)).toEqual(['User:operator', 'User:app', 'User:prometheus']);
  });

  it('scrapes /metrics with that token once prometheus-acl has granted DESCRIBE on the cluster', async () => {
    const token = readFileSync(tokenFile(), 'utf8').trim(); // Prometheus trims the credentials file too
    expect((await metricsWith()).status).toBe(401);
    expect((await metricsWith(token)).status).toBe(403);

    const acl = compose.services['prometheus-acl'];
    const [shell, flag, script] = acl.command!;
    await run(shell, [flag, script.replace(/\$\$/g, '$')], {
      env: {
        ...acl.environment,
        COHORT_URL: app.url,
        SECRETS_DIR: inSecrets(acl.environment!.SECRETS_DIR, secretsMount(acl)),
        PATH: `${join(REPO_ROOT, 'node_modules/.bin')}:${process.env.PATH}`,
      },
    });
    const scraped = await metricsWith(token);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain('# TYPE cohort_');
  });

  it('keeps every token when the generator runs again with a principal added', async () => {
    const before = readFileSync(join(secrets, 'tokens.json'), 'utf8');
    const operator = readFileSync(join(secrets, 'operator.token'), 'utf8');
    await run(process.execPath, [join(REPO_ROOT, generator.command![1]), secrets], {
      env: { ...process.env, TOKEN_PRINCIPALS: `${generator.environment!.TOKEN_PRINCIPALS},User:grafana` },
    });
    const after = JSON.parse(readFileSync(join(secrets, 'tokens.json'), 'utf8')) as { principals: unknown[] };
    expect(after.principals.slice(0, 3)).toEqual((JSON.parse(before) as { principals: unknown[] }).principals);
    expect(after.principals).toHaveLength(4);
    expect(readFileSync(join(secrets, 'operator.token'), 'utf8')).toBe(operator);
  });
});
