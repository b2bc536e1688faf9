import request from 'supertest';
import { allow } from '../support/acl-fixtures';
import { writeTokensFile } from '../support/auth-fixtures';
import { startApp, type RunningApp, tempDataDir } from '../support/test-app';

jest.setTimeout(60_000);

/**
 * The dead-letter routes of share groups over REST with tokens and ACLs on: reading needs DESCRIBE on the
 * group, redelivering READ on the group and on the topic (it changes what members will be given, as an
 * offset reset does), and a group id without share partition state is GROUP_ID_NOT_FOUND. What they
 * answer for a share group with dead letters is proved on the coordinator (share-group-views.spec.ts).
 */
const TOKENS = { admin: 'admin-token', ops: 'ops-token', reader: 'reader-token', nobody: 'nobody-token' };
const dir = tempDataDir('cohort-dead-letters-');
const data = tempDataDir('cohort-dead-letters-data-');
let running: RunningApp;
const as = (principal: keyof typeof TOKENS) => ({ Authorization: `Bearer ${TOKENS[principal]}` });
const range = { topic: 'jobs', partition: 0, firstOffset: 0, lastOffset: 9 };

beforeAll(async () => {
  running = await startApp({
    DATA_DIR: data.dir,
    AUTH_TOKENS_FILE: writeTokensFile(
      dir.dir,
      Object.fromEntries(Object.entries(TOKENS).map(([name, token]) => [`User:${name}`, token])),
    ),
    SUPER_USERS: 'User:admin',
  });
  await request(running.url).post('/v1/topics').set(as('admin')).send({ name: 'jobs', partitions: 1 }).expect(201);
  await request(running.url)
    .post('/v1/acls')
    .set(as('admin'))
    .send({
      acls: [
        allow('User:ops', 'READ', 'GROUP', 'workers'),
        allow('User:ops', 'READ', 'TOPIC', 'jobs'),
        allow('User:reader', 'DESCRIBE', 'GROUP', 'workers'),
      ],
    })
    .expect(201);
});

afterAll(async () => {
  await running?.close();
  dir.remove();
  data.remove();
});

describe('share group dead letters over REST', () => {
  it('needs DESCRIBE GROUP to read and READ GROUP and READ TOPIC to redeliver', async () => {
    const listed = await request(running.url).get('/v1/groups/workers/dead-letters').set(as('nobody')).expect(403);
    expect(listed.body).toMatchObject({ errorCode: 30, error: 'GROUP_AUTHORIZATION_FAILED' });
    const byNobody = await request(running.url)
      .post('/v1/groups/workers/dead-letters/redeliver')
      .set(as('nobody'))
      .send(range)
      .expect(403);
    expect(byNobody.body).toMatchObject({ errorCode: 30 });
    // DESCRIBE on the group lets one read, not redeliver.
    await request(running.url).get('/v1/groups/workers/dead-letters').set(as('reader')).expect(404);
    const byReader = await request(running.url)
      .post('/v1/groups/workers/dead-letters/redeliver')
      .set(as('reader'))
      .send(range)
      .expect(403);
    expect(byReader.body).toMatchObject({ errorCode: 30 });
    // READ on the group but not on the topic: 29.
    const otherTopic = await request(running.url)
      .post('/v1/groups/workers/dead-letters/redeliver')
      .set(as('ops'))
      .send({ ...range, topic: 'payments' })
      .expect(403);
    expect(otherTopic.body).toMatchObject({ errorCode: 29, error: 'TOPIC_AUTHORIZATION_FAILED' });
  });

  it('answers GROUP_ID_NOT_FOUND for an id without share partitions, and 400 for a malformed range', async () => {
    const missing = await request(running.url).get('/v1/groups/workers/dead-letters').set(as('ops')).expect(404);
    expect(missing.body).toMatchObject({ errorCode: 69, error: 'GROUP_ID_NOT_FOUND' });
    await request(running.url).post('/v1/groups/workers/dead-letters/redeliver').set(as('ops')).send(range).expect(404);
    for (const bad of [{ ...range, firstOffset: -1 }, { ...range, partition: 'x' }, { topic: 'jobs' }]) {
      const refused = await request(running.url)
        .post('/v1/groups/workers/dead-letters/redeliver')
        .set(as('ops'))
        .send(bad)
        .expect(400);
      expect(refused.body).toMatchObject({ errorCode: 42 });
    }
  });
});
