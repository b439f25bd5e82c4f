/** esm_class bits (SMPP 3.4 §5.2.12) the gateway sets or tests. */
export const EsmClass = {
  /** short_message (or message_payload) starts with a User Data Header. */
  Udhi: 0x40,
  /** Bits 2–5: message type on deliver_sm / data_sm from the SMSC. */
  MessageTypeMask: 0x3c,
  DeliveryReceipt: 0x04,
  DeliveryAck: 0x08,
  ManualUserAck: 0x10,
  ConversationAbort: 0x18,
  IntermediateNotification: 0x20,
} as const;
