/**
 * This node's place among the nodes sharing the database (decisions §23): it joins under its
 * id, beats while it runs, takes over the work of nodes whose heartbeat stopped, and leaves
 * cleanly on stop (everything it held is free at once).
 */
import type { Logger } from 'pino';
import type { EngineStore, InterruptedPolicy, TakeOver } from '../store/engine-store.js';

export interface NodeLeaseOptions {
  readonly store: Pick<EngineStore, 'join' | 'beat' | 'staleNodes' | 'takeOver' | 'leave'>;
  readonly id: string;
  readonly host: string;
  readonly pid: number;
  readonly ttlMs: number;
  readonly onInterrupted: InterruptedPolicy;
  readonly now: () => number;
  readonly logger: Logger;
  /** Another node's work became this node's to do. */
  readonly onTakenOver: (from: string, what: TakeOver) => void;
  /**
   * This node may have lost its lease (declared dead by another node, or no heartbeat written
   * for a whole TTL): its work may be someone else's already, so it must stop.
   */
  readonly onLost: (reason: string) => void;
}

export interface NodeLease {
  /** Stops beating and reaping; the node's row stays until leave(). */
  stop(): void;
  /** Gives back everything the node holds and removes it. */
  leave(): Promise<void>;
}

export async function joinCluster(options: NodeLeaseOptions): Promise<NodeLease> {
  const { store, id, ttlMs, logger, now } = options;
  const startedAt = now();
  // A configured id whose previous process died beats no more within a TTL; one that still
  // beats after that is a second live process with the same id, which must not share it.
  const deadline = now() + ttlMs + 1_000;
  for (;;) {
    const joined = await store.join(
      { id, host: options.host, pid: options.pid, startedAt },
      now(),
      ttlMs,
      options.onInterrupted,
    );
    if (joined.kind === 'joined') break;
    if (now() > deadline) {
      throw new Error(
        `node id ${id} is in use by a running node (host ${joined.node.host}, pid ${joined.node.pid}); ` +
          'give each node its own SMSGW_NODE_ID',
      );
    }
    logger.warn({ node: id }, 'node id still beating from a previous start; waiting for its lease to lapse');
    await new Promise((r) => setTimeout(r, Math.min(1_000, ttlMs / 4)));
  }
  logger.info({ node: id, leaseTtlMs: ttlMs }, 'node joined');

  let lastBeat = now();
  let stopped = false;
  let lost = false;
  const lose = (reason: string) => {
    if (lost || stopped) return;
    lost = true;
    options.onLost(reason);
  };

  const heartbeat = async () => {
    try {
      if (await store.beat(id, now())) lastBeat = now();
      else lose('another node declared this node dead and took its work over');
    } catch (error) {
      logger.warn({ err: error }, 'heartbeat not written');
      if (now() - lastBeat > ttlMs) lose(`no heartbeat written for ${ttlMs} ms`);
    }
  };

  let reaping = false;
  const reap = async () => {
    if (reaping || stopped) return;
    reaping = true;
    try {
      for (const other of await store.staleNodes(now(), ttlMs)) {
        if (other === id || stopped) continue;
        const what = await store.takeOver(other, now(), ttlMs, options.onInterrupted);
        if (what === null) continue;
        logger.warn(
          { node: other, interrupted: what.interrupted, deliveries: what.deliveries, binds: what.binds },
          'took over the work of a node whose heartbeat stopped',
        );
        options.onTakenOver(other, what);
      }
    } catch (error) {
      logger.warn({ err: error }, 'looking for stale nodes failed');
    } finally {
      reaping = false;
    }
  };

  const beatTimer = setInterval(() => void heartbeat(), Math.max(100, Math.floor(ttlMs / 4)));
  // Jittered, so the nodes of a cluster do not all look at once.
  const reapTimer = setInterval(
    () => void reap(),
    Math.max(200, Math.floor(ttlMs / 2) + Math.floor(Math.random() * 200)),
  );
  beatTimer.unref();
  reapTimer.unref();
  void reap();

  return {
    stop() {
      stopped = true;
      clearInterval(beatTimer);
      clearInterval(reapTimer);
    },
    async leave() {
      stopped = true;
      clearInterval(beatTimer);
      clearInterval(reapTimer);
      await store.leave(id, now());
      logger.info({ node: id }, 'node left');
    },
  };
}
