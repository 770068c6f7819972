/**
 * The down stream at the agent: commands applied strictly in cseq order, each once (applyCommand
 * commits the change with the new appliedCseq), and snapshots. What to ack is always the store's
 * appliedCseq: cumulative, so one ack per message is enough and a lost ack is made good by the
 * next one.
 */
import { SpanKind, context, trace } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { Command, Snapshot } from '../../../shared/src/protocol.js';
import { AGENT_TRACER, contextFrom, tracer } from '../../../shared/src/tracing.js';
import { applyCommand, applySnapshot } from '../commands/index.js';
import type { LockerStore } from '../store/index.js';
import type { LinkHooks } from './hooks.js';

export class DownStream {
  constructor(
    private readonly store: LockerStore,
    private readonly logger: Logger,
    private readonly hooks: LinkHooks,
  ) {}

  /** Applies what follows appliedCseq without a gap; duplicates are skipped. Returns the new appliedCseq. */
  commands(items: readonly Command[]): number {
    for (const command of [...items].sort((a, b) => a.cseq - b.cseq)) {
      const result = applyTraced(this.store, command);
      this.hooks.afterApply?.(command, result);
      if (result.status === 'gap') {
        // Nothing after a missing command is applied; the cloud sends again from the ack.
        this.logger.info({ cseq: command.cseq, appliedCseq: result.appliedCseq }, 'command gap; waiting for the resend');
        break;
      }
    }
    return this.store.appliedCseq();
  }

  /** Replaces the cloud's intent (facts stay); an older snapshot than appliedCseq is ignored. */
  snapshot(snapshot: Snapshot): number {
    const result = applySnapshot(this.store, snapshot);
    this.hooks.afterSnapshot?.(snapshot, result);
    this.logger.info({ status: result.status, cseq: snapshot.cseq, orders: snapshot.orders.length }, 'snapshot from the cloud');
    return this.store.appliedCseq();
  }
}

/** Applies one command inside a `command.apply` span, the child of the cloud's publish span it names. */
function applyTraced(store: LockerStore, command: Command): ReturnType<typeof applyCommand> {
  const span = tracer(AGENT_TRACER).startSpan(
    'command.apply',
    { kind: SpanKind.CONSUMER, attributes: { 'locker.command.cseq': command.cseq, 'locker.command.type': command.type } },
    contextFrom(command.traceparent),
  );
  try {
    const result = context.with(trace.setSpan(context.active(), span), () => applyCommand(store, command));
    span.setAttribute('locker.command.status', result.status);
    return result;
  } finally {
    span.end();
  }
}
