/**
 * POST /v1/sms/preview (decisions §18): the plan a POST /sms/message with the same body would
 * store (send-plan.ts, the same function), described instead: nothing is stored, sent or
 * reserved. It answers with the same errors, the credit check included, so a preview that
 * succeeds is a send that would be accepted now.
 */
import { SIMULATOR_CONNECTOR } from '../carriers/simulator/simulator.js';
import { candidates, type Route } from '../carriers/routing/routes.js';
import type { Config } from '../config/config.js';
import { formatDateTime } from '../domain/dates.js';
import { ValidationError, ValidationType } from '../domain/errors.js';
import type { Account, Store } from '../store/port.js';
import { planSend, type PlanDeps, type SendInput } from './send-plan.js';
import { creditInfo } from './send-message.js';

export interface PreviewDeps extends PlanDeps {
  readonly store: PlanDeps['store'] & Pick<Store, 'connectors'>;
  readonly config: Pick<Config, 'carrier'>;
}

export type RecipientPreview = {
  msisdn: string;
  status: 'ok' | 'suppressed' | 'no_route';
  connector: string | null;
  send_at: string;
};

export type PreviewResult =
  | {
      readonly kind: 'preview';
      readonly body: {
        num_parts: number;
        encoding: 'GSM-7' | 'UCS-2';
        characters: number;
        num_recipients: number;
        credits_needed: number;
        body: string;
        recipients: RecipientPreview[];
      };
    }
  | { readonly kind: 'too_many_parts'; readonly numParts: number; readonly numPartsMax: number };

export async function previewSend(
  deps: PreviewDeps,
  account: Account,
  input: SendInput,
): Promise<PreviewResult> {
  const plan = await planSend(deps, account, input);
  if (plan.kind !== 'planned') return plan;
  const unsuppressed = plan.recipients.length - plan.suppressed.size;
  // The send would reserve this much when it is accepted; too little is its refusal, and ours.
  if (account.credits !== null && plan.credits > 0) {
    const fresh = (await deps.store.accounts.get(account.id))?.credits ?? account.credits;
    if (fresh !== null && fresh < plan.credits) {
      throw new ValidationError({
        httpStatus: 403,
        type: ValidationType.CreditInsufficient,
        argument: 'to',
        badValue: plan.recipients.length,
        info: creditInfo(plan.credits, plan.numParts, unsuppressed, fresh),
      });
    }
  }
  const connectorOf = await router(deps);
  const due = Math.max(plan.sendAt, plan.now);
  return {
    kind: 'preview',
    body: {
      num_parts: plan.numParts,
      encoding: plan.encoding === 'gsm7' ? 'GSM-7' : 'UCS-2',
      characters: [...plan.body].length,
      num_recipients: plan.recipients.length,
      credits_needed: plan.credits,
      body: plan.body,
      recipients: plan.recipients.map((msisdn) => {
        const suppressed = plan.suppressed.has(msisdn);
        const connector = suppressed ? null : connectorOf(msisdn);
        return {
          msisdn,
          status: suppressed ? 'suppressed' : connector === null ? 'no_route' : 'ok',
          connector,
          send_at: formatDateTime(plan.releaseAt.get(msisdn) ?? due),
        };
      }),
    },
  };
}

/**
 * The connector the engine's router would try first (src/carriers/routing): the simulator
 * carries everything; with SMPP, the best matching route, or none (the send aborts it).
 */
async function router(deps: PreviewDeps): Promise<(msisdn: string) => string | null> {
  if (deps.config.carrier === 'simulator') return () => SIMULATOR_CONNECTOR;
  const routes: Route[] = (await deps.store.connectors.listRoutes()).map((r) => ({
    prefix: r.prefix,
    connector: r.connector,
    priority: r.priority,
  }));
  return (msisdn) => candidates(routes, msisdn)[0]?.connector ?? null;
}
