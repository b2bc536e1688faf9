#!/usr/bin/env node
// Makes what a secured Cohort cluster reads, in DIR (default ./data/secrets), keeping whatever exists:
//   cluster.secret   48 random bytes, base64: CLUSTER_SECRET_FILE of every node
//   tokens.json      AUTH_TOKENS_FILE with one static token per principal, stored as SHA-256 only
//   <name>.token     each principal's token itself (mode 600), for the clients that use it
// Principals: TOKEN_PRINCIPALS (comma-separated, default "User:operator,User:app"). SECRETS_OWNER=uid:gid
// hands the files to that user (docker/compose.yml: the image's `node` user, 1000:1000).
import { createHash, randomBytes } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? './data/secrets';
const principals = (process.env.TOKEN_PRINCIPALS ?? 'User:operator,User:app')
  .split(',')
  .map((p) => p.trim())
  .filter(Boolean);
const owner = process.env.SECRETS_OWNER ? process.env.SECRETS_OWNER.split(':').map(Number) : null;
mkdirSync(dir, { recursive: true, mode: 0o700 });
const written = [];
const write = (name, text) => {
  const path = join(dir, name);
  writeFileSync(path, text, { mode: 0o600 });
  if (owner) chownSync(path, owner[0], owner[1]);
  written.push(path);
};

if (!existsSync(join(dir, 'cluster.secret'))) write('cluster.secret', `${randomBytes(48).toString('base64')}\n`);
if (!existsSync(join(dir, 'tokens.json'))) {
  const entries = principals.map((name) => {
    const token = randomBytes(32).toString('base64url');
    write(`${name.slice(name.indexOf(':') + 1)}.token`, `${token}\n`);
    return { name, tokenSha256: createHash('sha256').update(token).digest('hex') };
  });
  write('tokens.json', `${JSON.stringify({ principals: entries }, null, 2)}\n`);
}
if (owner) chownSync(dir, owner[0], owner[1]);
console.log(written.length > 0 ? `wrote ${written.join(', ')}` : `kept the secrets already in ${dir}`);
