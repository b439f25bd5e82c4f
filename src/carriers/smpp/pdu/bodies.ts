/**
 * The mandatory parameters of each command, in wire order (SMPP 3.4 §4). This table is the
 * codec: encode.ts and decode.ts walk it, and pdu.ts derives the PDU types from it.
 */
import type { CommandName } from './commands.js';
import {
  cstring,
  destAddresses,
  shortMessage,
  u8,
  unsuccessSmes,
  withInitial,
  type Field,
} from './fields.js';

export type BodySpec = readonly (readonly [name: string, field: Field<unknown>])[];

const bind = [
  ['systemId', cstring(16)],
  ['password', cstring(9)],
  ['systemType', cstring(13)],
  ['interfaceVersion', withInitial(u8, 0x34)],
  ['addrTon', u8],
  ['addrNpi', u8],
  ['addressRange', cstring(41)],
] as const;

const bindResp = [['systemId', cstring(16)]] as const;

const messageIdOnly = [['messageId', cstring(65)]] as const;

// submit_sm and deliver_sm share one layout; deliver_sm leaves the two times empty.
const shortMessagePdu = [
  ['serviceType', cstring(6)],
  ['sourceAddrTon', u8],
  ['sourceAddrNpi', u8],
  ['sourceAddr', cstring(21)],
  ['destAddrTon', u8],
  ['destAddrNpi', u8],
  ['destinationAddr', cstring(21)],
  ['esmClass', u8],
  ['protocolId', u8],
  ['priorityFlag', u8],
  ['scheduleDeliveryTime', cstring(17)],
  ['validityPeriod', cstring(17)],
  ['registeredDelivery', u8],
  ['replaceIfPresentFlag', u8],
  ['dataCoding', u8],
  ['smDefaultMsgId', u8],
  ['shortMessage', shortMessage],
] as const;

const dataSm = [
  ['serviceType', cstring(6)],
  ['sourceAddrTon', u8],
  ['sourceAddrNpi', u8],
  ['sourceAddr', cstring(65)],
  ['destAddrTon', u8],
  ['destAddrNpi', u8],
  ['destinationAddr', cstring(65)],
  ['esmClass', u8],
  ['registeredDelivery', u8],
  ['dataCoding', u8],
] as const;

const querySm = [
  ['messageId', cstring(65)],
  ['sourceAddrTon', u8],
  ['sourceAddrNpi', u8],
  ['sourceAddr', cstring(21)],
] as const;

const querySmResp = [
  ['messageId', cstring(65)],
  ['finalDate', cstring(17)],
  ['messageState', u8],
  ['errorCode', u8],
] as const;

// submit_multi is submit_sm with a list of destinations in place of the one address (§4.5.1).
const submitMulti = [
  ['serviceType', cstring(6)],
  ['sourceAddrTon', u8],
  ['sourceAddrNpi', u8],
  ['sourceAddr', cstring(21)],
  ['destAddresses', destAddresses],
  ['esmClass', u8],
  ['protocolId', u8],
  ['priorityFlag', u8],
  ['scheduleDeliveryTime', cstring(17)],
  ['validityPeriod', cstring(17)],
  ['registeredDelivery', u8],
  ['replaceIfPresentFlag', u8],
  ['dataCoding', u8],
  ['smDefaultMsgId', u8],
  ['shortMessage', shortMessage],
] as const;

const submitMultiResp = [
  ['messageId', cstring(65)],
  ['unsuccessSmes', unsuccessSmes],
] as const;

const cancelSm = [
  ['serviceType', cstring(6)],
  ['messageId', cstring(65)],
  ['sourceAddrTon', u8],
  ['sourceAddrNpi', u8],
  ['sourceAddr', cstring(21)],
  ['destAddrTon', u8],
  ['destAddrNpi', u8],
  ['destinationAddr', cstring(21)],
] as const;

const outbind = [
  ['systemId', cstring(16)],
  ['password', cstring(9)],
] as const;

const empty = [] as const;

export const BODIES = {
  generic_nack: empty,
  bind_receiver: bind,
  bind_receiver_resp: bindResp,
  bind_transmitter: bind,
  bind_transmitter_resp: bindResp,
  bind_transceiver: bind,
  bind_transceiver_resp: bindResp,
  outbind,
  unbind: empty,
  unbind_resp: empty,
  enquire_link: empty,
  enquire_link_resp: empty,
  submit_sm: shortMessagePdu,
  submit_sm_resp: messageIdOnly,
  deliver_sm: shortMessagePdu,
  deliver_sm_resp: messageIdOnly,
  data_sm: dataSm,
  data_sm_resp: messageIdOnly,
  query_sm: querySm,
  query_sm_resp: querySmResp,
  cancel_sm: cancelSm,
  cancel_sm_resp: empty,
  submit_multi: submitMulti,
  submit_multi_resp: submitMultiResp,
} as const satisfies Record<CommandName, BodySpec>;
