import { InMemoryTopicRegistry } from '@cohort/coordinator';
import type { CohortNode } from './cohort-node';
import type { NodeView } from './cluster-status';
import { metadataAnswer } from './metadata-answer';

function nodeWith(nodes: NodeView[], topics: InMemoryTopicRegistry): CohortNode {
  return { topics, cluster: { nodes: () => nodes } } as unknown as CohortNode;
}

describe('metadataAnswer', () => {
  it('lists every live node with its advertised URL, by id, and leaves out nodes whose registration expired', async () => {
    const topics = new InMemoryTopicRegistry();
    await topics.create('orders', 3);
    const node = nodeWith(
      [
        { nodeId: 2, url: 'http://10.0.0.3:3000', alive: true },
        { nodeId: 0, url: 'http://10.0.0.1:3000', alive: false }, // SIGKILLed: its registration expired
        { nodeId: 1, url: 'http://10.0.0.2:3000', alive: true },
        { nodeId: 3, url: '', alive: false }, // a replica id never seen registered
      ],
      topics,
    );
    expect(metadataAnswer(node, ['orders', 'ghost', 'secret'], new Set(['secret']))).toEqual({
      errorCode: 0,
      topics: [
        { name: 'orders', partitions: 3, errorCode: 0 },
        { name: 'ghost', partitions: 0, errorCode: 3 },
        { name: 'secret', partitions: 0, errorCode: 29 },
      ],
      nodes: [
        { nodeId: 1, url: 'http://10.0.0.2:3000' },
        { nodeId: 2, url: 'http://10.0.0.3:3000' },
      ],
    });
  });

  it('answers the nodes alone to a request for no topic (what a client bootstrapping asks)', () => {
    const node = nodeWith([{ nodeId: 0, url: 'http://127.0.0.1:3000', alive: true }], new InMemoryTopicRegistry());
    expect(metadataAnswer(node, [], new Set())).toEqual({
      errorCode: 0,
      topics: [],
      nodes: [{ nodeId: 0, url: 'http://127.0.0.1:3000' }],
    });
  });
});
