/** SMPP 3.4 PDU codec: pure, no sockets. session/ and smsc/ build on this. */
export { CommandId, commandName, isResponseId, type CommandName } from './commands.js';
export { CommandStatus, commandStatusName, type CommandStatusName } from './status.js';
export {
  makePdu,
  makeRequest,
  type Pdu,
  type PduFields,
  type PduHeader,
  type PduOf,
  type Unnumbered,
} from './pdu.js';
export { encodeInto, encodePdu, HEADER_LENGTH } from './encode.js';
export { decodeAt, decodePdu, type DecodeResult } from './decode.js';
export { DEFAULT_MAX_PDU_LENGTH, PduReader } from './reader.js';
export { PduEncodeError, Writer } from './octets.js';
export { findTlv, type Tlv } from './tlv.js';
export type { DestAddress, UnsuccessSme } from './fields.js';
export {
  getTlv,
  tlv,
  TlvParam,
  type NetworkErrorCode,
  type TlvParamName,
  type TlvValue,
} from './tlv-params.js';
export { EsmClass } from './esm-class.js';
export {
  chooseDataCoding,
  DataCoding,
  decodeText,
  encodeText,
  type DecodedText,
  type DecodeProblem,
  type EncodeTextResult,
  type TextDataCoding,
} from './encoding.js';
export { splitForSubmit, type ConcatMode, type SplitResult, type SubmitPart } from './split.js';
export {
  concatUdh,
  Iei,
  parseConcat,
  parseSar,
  parseUdh,
  readUdh,
  type ConcatPart,
  type Udh,
} from './udh.js';
export {
  isDeliveryReceipt,
  MessageState,
  parseReceiptText,
  readReceipt,
  type Receipt,
  type ReceiptDate,
  type ReceiptStat,
  type ReceiptText,
} from './receipt.js';
export { messageIdsMatch } from './message-id.js';
