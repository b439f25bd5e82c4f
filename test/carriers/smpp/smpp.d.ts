// The npm `smpp` package ships no types; this covers the little the interop tests use.
declare module 'smpp' {
  export interface SmppPdu {
    command: string;
    command_length: number;
    command_id: number;
    command_status: number;
    sequence_number: number;
    toBuffer(): Buffer;
    response(options?: Record<string, unknown>): SmppPdu;
    [field: string]: unknown;
  }
  export interface SmppPduClass {
    new (command: string, options?: Record<string, unknown>): SmppPdu;
    fromBuffer(buffer: Buffer): SmppPdu | false;
  }
  export type ResponseCallback = (pdu: SmppPdu) => void;
  export interface SmppSession {
    on(event: string, listener: (pdu: SmppPdu) => void): this;
    on(event: 'error', listener: (err: Error) => void): this;
    on(event: 'close', listener: () => void): this;
    once(event: string, listener: (...args: unknown[]) => void): this;
    send(pdu: SmppPdu, responseCallback?: ResponseCallback): boolean;
    bind_transceiver(options: Record<string, unknown>, callback?: ResponseCallback): boolean;
    submit_sm(options: Record<string, unknown>, callback?: ResponseCallback): boolean;
    deliver_sm(options: Record<string, unknown>, callback?: ResponseCallback): boolean;
    enquire_link(callback?: ResponseCallback): boolean;
    unbind(callback?: ResponseCallback): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
  }
  export interface SmppServer {
    listen(port: number, host: string, callback?: () => void): SmppServer;
    address(): { port: number } | string | null;
    close(callback?: () => void): void;
    sessions: SmppSession[];
  }
  const smpp: {
    PDU: SmppPduClass;
    errors: Record<string, number>;
    createServer(listener: (session: SmppSession) => void): SmppServer;
    connect(options: { host: string; port: number }, listener?: () => void): SmppSession;
  };
  export default smpp;
}
