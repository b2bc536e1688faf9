import type { Controller } from '../controller/controller';
import { alterPartitionRequest, applyAlterPartitionResponse } from '../partition/isr-changes';
import type { IsrState } from '../partition/isr-state';
import type { Partition } from '../partition/partition';
import type { ReplicationConfig } from '../replication-config';
import type { AlterPartitionRequest, AlterPartitionResponse } from '../transport/messages';
import type { Transport } from '../transport/transport.port';
import type { RegistrationCache } from './registration-cache';
import type { TaskScope } from './task-scope';

/** Finds the controller when it runs in this very process. */
export interface ControllerLocator {
  localController(): Controller | undefined;
}

/**
 * Sends a partition's pending ISR change to the controller (AlterPartitionManager): one request in
 * flight per partition (I17), the same proposal resent after a back-off when the controller could not
 * be reached, and at once to a newly elected controller — what waited on the old one (its answer, or a
 * back-off after failing to reach it: a dead controller is the usual reason a new one is elected) goes
 * to the new one without waiting, as Kafka's controller channel resends its queue on a controller change.
 */
export class AlterPartitionSender {
  private readonly inFlight = new Set<number>();
  /** Partitions waiting out a back-off before resending: nothing else may resend them meanwhile. */
  private readonly backingOff = new Set<number>();
  /** Proposals the controller refused for good ("your view is stale"): wait for new metadata instead. */
  private readonly parked = new Map<number, IsrState>();
  /** Bumped on every controller change: answers and back-offs of an earlier controller no longer count. */
  private controllerGeneration = 0;

  constructor(
    private readonly scope: TaskScope,
    private readonly config: ReplicationConfig,
    private readonly transport: Transport,
    private readonly cluster: RegistrationCache,
    private readonly locator: ControllerLocator,
    private readonly afterResponse: (p: Partition) => void,
  ) {}

  send(p: Partition): void {
    if (this.inFlight.has(p.partition) || this.backingOff.has(p.partition) || this.scope.closed) return;
    if (this.parked.get(p.partition) === p.isrState) return;
    this.parked.delete(p.partition);
    const pending = alterPartitionRequest(p);
    if (!pending) return;
    this.inFlight.add(p.partition);
    const generation = this.controllerGeneration;
    this.call(pending.request).then(
      (response) => this.finish(p, pending.sent, response, generation),
      () => this.finish(p, pending.sent, undefined, generation),
    );
  }

  /**
   * A new controller holds the lease: every pending proposal goes to it now. A late answer of the old
   * controller is dropped (had it applied the change, the new metadata brings it; its writes after
   * losing the lease are fenced by the controller epoch).
   */
  controllerMoved(partitions: Iterable<Partition>): void {
    this.controllerGeneration++;
    this.inFlight.clear();
    this.backingOff.clear();
    for (const p of partitions) if (p.isIsrChangePending()) this.send(p);
  }

  private finish(p: Partition, sent: IsrState, response: AlterPartitionResponse | undefined, generation: number): void {
    if (generation !== this.controllerGeneration) return;
    this.inFlight.delete(p.partition);
    if (this.scope.closed) return;
    const next = applyAlterPartitionResponse(p, sent, response);
    if (next === 'done' && p.isrState === sent) this.parked.set(p.partition, sent);
    if (next === 'retry') {
      this.backingOff.add(p.partition);
      this.scope.schedule(this.config.replicaFetchBackoffMs, () => {
        if (generation !== this.controllerGeneration) return;
        this.backingOff.delete(p.partition);
        this.send(p);
      });
    }
    this.afterResponse(p);
  }

  private call(request: AlterPartitionRequest): Promise<AlterPartitionResponse> {
    const lease = this.cluster.controller;
    if (!lease) return Promise.reject(new Error('no controller known'));
    const local = this.locator.localController();
    if (local && lease.nodeId === this.transport.nodeId) return local.handleAlterPartition(request);
    const peer = this.cluster.peer(lease.nodeId);
    if (!peer) return Promise.reject(new Error(`controller ${lease.nodeId} is not registered`));
    return this.transport.send(peer, 'alterPartition', request, this.config.requestTimeoutMs);
  }
}
