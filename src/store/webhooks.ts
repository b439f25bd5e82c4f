/**
 * Webhook deliveries (decisions §10): a row per webhook with its exact body, which is also its
 * work item, and a row per attempt so a person can read back what happened. The parts
 * live in ./webhooks/, one file per job; this is what the rest of the code imports.
 */
export { DELIVERY_KINDS, DELIVERY_STATES, type DeliveryKind, type DeliveryState } from './webhooks/kinds.js';
export {
  enqueueInboundWebhook,
  insertDeliveriesIn,
  originOf,
  setHold,
  type DeliveryHandoff,
  type DeliveryHold,
  type HeldDelivery,
  type InboundWebhookInput,
  type NewDelivery,
} from './webhooks/enqueue.js';
export {
  inboundForWebhookIn,
  recipientsOfIn,
  reportTargetsIn,
  type RecipientRow,
  type ReportTarget,
} from './webhooks/report-reads.js';
export type { AccountSecrets, ClaimedDelivery, ClaimRequest, ClaimResult } from './webhooks/claim.js';
export type { AttemptRecord, DeliveryNext, DeliveryResult } from './webhooks/record.js';
export type { AttemptView, DeliveryQuery, DeliveryRecord } from './webhooks/listing.js';
export type { ReplayOutcome } from './webhooks/replay.js';
export { webhookStore, type WebhookStore } from './webhooks/store.js';
