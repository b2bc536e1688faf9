import { setup, stable } from '@cohort/client/testing';

const NODES = [0, 1, 2].map((nodeId) => ({ nodeId, url: `http://node-${nodeId}` }));

/**
 * How a member finds its coordinator from a bootstrap list (Kafka's bootstrap.servers + Metadata):
 * under a fake clock, with a scripted cluster whose nodes can die. Every URL the fake answers on is a
 * node of the same cluster; `kill` makes one unreachable as a SIGKILL does.
 */
describe('CohortMember discovery (bootstrap list, node list, lookups through any node)', () => {
  it('learns every live node from the one it was given, asking it for no topic', async () => {
    const ctx = setup({}, { urls: ['http://node-0'] });
    ctx.server.nodes = NODES;
    await stable(ctx);
    expect(ctx.server.requests.find((r) => r.event === 'Metadata')).toEqual({
      event: 'Metadata',
      payload: { topics: [] },
      url: 'http://node-0',
    });
    expect(ctx.client.nodes).toEqual(NODES);
  });

  it('the node that was bootstrap and coordinator at once dies: the member finds the new coordinator through the nodes it learned, keeping its generation', async () => {
    const ctx = setup({}, { urls: ['http://node-0'] });
    ctx.server.nodes = NODES;
    await stable(ctx);
    const before = ctx.server.requests.length;
    ctx.server.kill('http://node-0');
    ctx.server.coordinator = NODES[1]; // the controller moved the group's partition to node 1
    await ctx.timers.until(() =>
      ctx.server.requests.slice(before).some((r) => r.event === 'Heartbeat' && r.url === 'http://node-1'),
    );
    await ctx.timers.advance(15_000);
    const after = ctx.server.requests.slice(before);
    expect(after.every((r) => r.url !== 'http://node-0')).toBe(true);
    expect(after.filter((r) => r.event === 'FindCoordinator').map((r) => r.url)).not.toContain('http://node-0');
    expect(ctx.member).toMatchObject({ state: 'stable', generationId: 1, memberId: 'm-1' });
    expect(ctx.log.filter((l) => l.startsWith('lost'))).toEqual([]);
    // The lost connection made it ask for the node list again, from a live node.
    expect(after.some((r) => r.event === 'Metadata' && r.url !== 'http://node-0')).toBe(true);
  });

  it('after the first answer it never needs the bootstrap URL again: that connection is closed once idle', async () => {
    // A bootstrap URL that is not any node's advertised URL (a DNS alias, a load balancer).
    const ctx = setup({}, { urls: ['http://bootstrap'] });
    await stable(ctx);
    const bootstrap = ctx.server.sockets.filter((s) => s.url === 'http://bootstrap');
    expect(bootstrap.length).toBeGreaterThan(0);
    expect(bootstrap.every((s) => s.closedByClient)).toBe(true);
    ctx.server.kill('http://bootstrap');
    ctx.server.drop();
    ctx.server.reconnect();
    await ctx.timers.advance(10_000);
    expect(ctx.member).toMatchObject({ state: 'stable', generationId: 1 });
  });

  it('refreshes the node list every metadataMaxAgeMs while a member runs, and forgets a node that left', async () => {
    const ctx = setup({}, { urls: ['http://node-0'], metadataMaxAgeMs: 60_000 });
    ctx.server.nodes = NODES;
    await stable(ctx);
    const metadata = () => ctx.server.requests.filter((r) => r.event === 'Metadata' && r.payload.topics.length === 0);
    expect(metadata()).toHaveLength(1);
    ctx.server.nodes = NODES.slice(0, 2); // node 2 was removed from the cluster
    await ctx.timers.advance(59_000);
    expect(metadata()).toHaveLength(1);
    await ctx.timers.advance(1_000);
    expect(metadata()).toHaveLength(2);
    expect(ctx.client.nodes).toEqual(NODES.slice(0, 2));
    await ctx.timers.advance(60_000);
    expect(metadata()).toHaveLength(3);
    // Once the member stops, nobody needs the list: no more refreshes.
    await ctx.member.stop();
    await ctx.timers.advance(180_000);
    expect(metadata()).toHaveLength(3);
  });

  it('when every known node is unreachable it goes back to the bootstrap URLs (KIP-899 rebootstrap) and learns the new nodes there', async () => {
    const ctx = setup({}, { urls: ['http://bootstrap'] });
    await stable(ctx);
    expect(ctx.client.nodes).toEqual([{ nodeId: 0, url: 'http://node-0' }]);
    // The whole cluster was replaced behind the same bootstrap name.
    ctx.server.kill('http://node-0');
    ctx.server.nodes = [{ nodeId: 5, url: 'http://node-5' }];
    ctx.server.coordinator = { nodeId: 5, url: 'http://node-5' };
    await ctx.timers.until(() => ctx.server.requests.some((r) => r.event === 'Heartbeat' && r.url === 'http://node-5'));
    expect(ctx.client.nodes).toEqual([{ nodeId: 5, url: 'http://node-5' }]);
    expect(ctx.member).toMatchObject({ state: 'stable', generationId: 1 });
  });

  it('a FindCoordinator that names a dead node is asked again after a back-off, until the new coordinator is named', async () => {
    const ctx = setup({}, { urls: ['http://node-0'] });
    ctx.server.nodes = NODES;
    await stable(ctx);
    ctx.server.kill('http://node-0');
    // The other nodes name node 0 until its registration expires, then nobody, then node 2.
    ctx.server.answer('FindCoordinator', () => ({
      errorCode: 0,
      nodeId: 0,
      host: 'node-0',
      port: 1,
      url: 'http://node-0',
      partition: 0,
    }));
    ctx.server.answer('FindCoordinator', () => ({
      errorCode: 15,
      errorName: 'COORDINATOR_NOT_AVAILABLE',
      nodeId: -1,
      host: '',
      port: -1,
      url: '',
      partition: 0,
    }));
    ctx.server.coordinator = NODES[2];
    await ctx.timers.until(() => ctx.server.requests.some((r) => r.event === 'Heartbeat' && r.url === 'http://node-2'));
    expect(ctx.errors.map((e) => e.name)).toEqual(
      expect.arrayContaining(['NETWORK_EXCEPTION', 'COORDINATOR_NOT_AVAILABLE']),
    );
    expect(ctx.member).toMatchObject({ state: 'stable', generationId: 1 });
  });
});
