// The npm `smpp` package ships no types; this covers the little the interop tests use.
declare module 'smpp' {
  interface SmppPdu {
    command: string;
    command_length: number;
    command_id: number;
    command_status: number;
    sequence_number: number;
    toBuffer(): Buffer;
    [field: string]: unknown;
  }
  interface SmppPduClass {
    new (command: string, options?: Record<string, unknown>): SmppPdu;
    fromBuffer(buffer: Buffer): SmppPdu | false;
  }
  const smpp: { PDU: SmppPduClass; errors: Record<string, number> };
  export default smpp;
}
