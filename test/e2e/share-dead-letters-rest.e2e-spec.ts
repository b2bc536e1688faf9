import request from 'supertest';
import { allow } from '../support/acl-fixtures';
import { tokenApp } from '../support/token-app';

jest.setTimeout(60_000);

/**
 * The dead-letter routes of share groups over REST with tokens and ACLs on: reading needs DESCRIBE on the
 * group, redelivering READ on the group and on the topic (it changes what members will be given, as an
 * offset reset does), and a group id without share partition state is GROUP_ID_NOT_FOUND. What they
 * answer for a share group with dead letters is proved on the coordinator (share-group-views.spec.ts).
 */
const node = tokenApp('cohort-dead-letters-', {
  admin: 'admin-token',
  ops: 'ops-token',
  reader: 'reader-token',
  nobody: 'nobody-token',
});
const { as } = node;
const range = { topic: 'jobs', partition: 0, firstOffset: 0, lastOffset: 9 };

beforeAll(async () => {
  await node.start();
  await node.createTopics([['jobs', 1]]);
  await node.grant([
    allow('User:ops', 'READ', 'GROUP', 'workers'),
    allow('User:ops', 'READ', 'TOPIC', 'jobs'),
    allow('User:reader', 'DESCRIBE', 'GROUP', 'workers'),
  ]);
});

afterAll(() => node.stop());

describe('share group dead letters over REST', () => {
  it('needs DESCRIBE GROUP to read and READ GROUP and READ TOPIC to redeliver', async () => {
    const listed = await request(node.url).get('/v1/groups/workers/dead-letters').set(as('nobody')).expect(403);
    expect(listed.body).toMatchObject({ errorCode: 30, error: 'GROUP_AUTHORIZATION_FAILED' });
    const byNobody = await request(node.url)
      .post('/v1/groups/workers/dead-letters/redeliver')
      .set(as('nobody'))
      .send(range)
      .expect(403);
    expect(byNobody.body).toMatchObject({ errorCode: 30 });
    // DESCRIBE on the group lets one read, not redeliver.
    await request(node.url).get('/v1/groups/workers/dead-letters').set(as('reader')).expect(404);
    const byReader = await request(node.url)
      .post('/v1/groups/workers/dead-letters/redeliver')
      .set(as('reader'))
      .send(range)
      .expect(403);
    expect(byReader.body).toMatchObject({ errorCode: 30 });
    // READ on the group but not on the topic: 29.
    const otherTopic = await request(node.url)
      .post('/v1/groups/workers/dead-letters/redeliver')
      .set(as('ops'))
      .send({ ...range, topic: 'payments' })
      .expect(403);
    expect(otherTopic.body).toMatchObject({ errorCode: 29, error: 'TOPIC_AUTHORIZATION_FAILED' });
  });

  it('answers GROUP_ID_NOT_FOUND for an id without share partitions, and 400 for a malformed range', async () => {
    const missing = await request(node.url).get('/v1/groups/workers/dead-letters').set(as('ops')).expect(404);
    expect(missing.body).toMatchObject({ errorCode: 69, error: 'GROUP_ID_NOT_FOUND' });
    await request(node.url).post('/v1/groups/workers/dead-letters/redeliver').set(as('ops')).send(range).expect(404);
    for (const bad of [{ ...range, firstOffset: -1 }, { ...range, partition: 'x' }, { topic: 'jobs' }]) {
      const refused = await request(node.url)
        .post('/v1/groups/workers/dead-letters/redeliver')
        .set(as('ops'))
        .send(bad)
        .expect(400);
      expect(refused.body).toMatchObject({ errorCode: 42 });
    }
  });
});
