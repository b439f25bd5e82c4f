export { createSmppConnector, type SmppConnector, type SmppConnectorState } from './connector.js';
export { CONNECTOR_DEFAULTS, type SmppConnectorOptions } from './options.js';
export {
  FAILURE_POLICY,
  SUBMIT_STATUS_POLICY,
  submitStatusPolicy,
  type StatusPolicy,
} from './submit-status.js';
export { RECEIPT_STATE_BY_STAT, receiptState } from './receipt-states.js';
