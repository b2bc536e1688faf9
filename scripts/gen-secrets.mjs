#!/usr/bin/env node
// Makes what a secured Cohort cluster reads, in DIR (default ./data/secrets), keeping whatever exists:
//   cluster.secret   48 random bytes, base64: CLUSTER_SECRET_FILE of every node
//   tokens.json      AUTH_TOKENS_FILE with one static token per principal, stored as SHA-256 only
//   <name>.token     each principal's token itself (mode 600), for the clients that use it
// Principals: TOKEN_PRINCIPALS (comma-separated, default "User:operator,User:app"); a principal missing
// from an existing tokens.json is added to it, the others keep their tokens. SECRETS_OWNER=uid:gid hands
// the files to that user (docker/compose.yml: the image's `node` user, 1000:1000); TOKEN_OWNERS
// ("prometheus=65534:65534,...") hands a token file to another user instead (compose: Prometheus, which
// runs as `nobody`), and then lets others through DIR (mode 711: no listing, each file still 600).
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? './data/secrets';
const principals = (process.env.TOKEN_PRINCIPALS ?? 'User:operator,User:app')
  .split(',')
  .map((p) => p.trim())
  .filter(Boolean);
const parseOwner = (text) => text.split(':').map(Number);
const owner = process.env.SECRETS_OWNER ? parseOwner(process.env.SECRETS_OWNER) : null;
const tokenOwners = new Map(
  (process.env.TOKEN_OWNERS ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => [entry.slice(0, entry.indexOf('=')), parseOwner(entry.slice(entry.indexOf('=') + 1))]),
);
mkdirSync(dir, { recursive: true, mode: 0o700 });
const written = [];
// Written aside and renamed into place: nodes poll tokens.json, and must never read half of one.
const write = (name, text, fileOwner = owner) => {
  const path = join(dir, name);
  writeFileSync(`${path}.tmp`, text, { mode: 0o600 });
  if (fileOwner) chownSync(`${path}.tmp`, fileOwner[0], fileOwner[1]);
  renameSync(`${path}.tmp`, path);
  written.push(path);
};

if (!existsSync(join(dir, 'cluster.secret'))) write('cluster.secret', `${randomBytes(48).toString('base64')}\n`);
const tokensFile = join(dir, 'tokens.json');
const known = existsSync(tokensFile) ? JSON.parse(readFileSync(tokensFile, 'utf8')).principals : [];
const added = principals
  .filter((name) => !known.some((entry) => entry.name === name))
  .map((name) => {
    const token = randomBytes(32).toString('base64url');
    const short = name.slice(name.indexOf(':') + 1);
    write(`${short}.token`, `${token}\n`, tokenOwners.get(short) ?? owner);
    return { name, tokenSha256: createHash('sha256').update(token).digest('hex') };
  });
if (added.length > 0) write('tokens.json', `${JSON.stringify({ principals: [...known, ...added] }, null, 2)}\n`);
if (owner) chownSync(dir, owner[0], owner[1]);
if (tokenOwners.size > 0) chmodSync(dir, 0o711);
console.log(written.length > 0 ? `wrote ${written.join(', ')}` : `kept the secrets already in ${dir}`);
