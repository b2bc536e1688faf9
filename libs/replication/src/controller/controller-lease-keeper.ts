import type { MetadataStore } from '../metadata/metadata-store.port';
import type { ReplicationConfig } from '../replication-config';
import { TaskScope } from '../node/task-scope';
import { Controller, type ControllerDeps } from './controller';

/**
 * Competes for the controller lease and runs the Controller while this node holds it. The lease is
 * renewed every third of its length; if renewal fails for longer than the lease the controller stops
 * (another node has taken over — and its writes, under a newer controller epoch, would fence ours anyway).
 */
export class ControllerLeaseKeeper {
  private controller: Controller | undefined;
  private lastRenewedAt = -Infinity;

  constructor(
    private readonly nodeId: number,
    private readonly store: MetadataStore,
    private readonly config: ReplicationConfig,
    private readonly scope: TaskScope,
    private readonly describeLogEnds: ControllerDeps['describeLogEnds'],
    private readonly trace?: (line: string) => void,
  ) {}

  /** The running controller, when this node holds the lease. */
  get active(): Controller | undefined {
    return this.controller;
  }

  start(): void {
    void this.tick();
    this.scope.every(Math.max(1, Math.floor(this.config.controllerLeaseMs / 3)), () => void this.tick());
  }

  async stop(release: boolean): Promise<void> {
    const c = this.controller;
    this.controller = undefined;
    c?.stop();
    if (release && c) await this.store.releaseControllerLease(this.nodeId, c.controllerEpoch).catch(() => undefined);
  }

  private async tick(): Promise<void> {
    const sentAt = this.scope.clock.now();
    let lease;
    try {
      lease = await this.store.acquireControllerLease(this.nodeId, this.config.controllerLeaseMs);
    } catch {
      if (this.scope.closed) return;
      if (this.controller && this.scope.clock.now() - this.lastRenewedAt >= this.config.controllerLeaseMs)
        void this.stop(false);
      return;
    }
    if (this.scope.closed) return;
    if (!lease) {
      if (this.controller) void this.stop(false);
      return;
    }
    this.lastRenewedAt = sentAt;
    if (this.controller?.controllerEpoch === lease.controllerEpoch) return;
    this.controller?.stop();
    this.controller = new Controller({
      nodeId: this.nodeId,
      controllerEpoch: lease.controllerEpoch,
      store: this.store,
      config: this.config,
      scope: new TaskScope(this.scope.clock),
      describeLogEnds: this.describeLogEnds,
      trace: this.trace,
    });
    this.trace?.(`node ${this.nodeId} became controller #${lease.controllerEpoch}`);
    this.controller.start();
  }
}
