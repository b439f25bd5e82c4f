/** Opens the TCP or TLS connection to the SMSC, bounded by a connect timeout. */
import net from 'node:net';
import tls from 'node:tls';

export interface Endpoint {
  readonly host: string;
  readonly port: number;
  /** true for TLS with the system CAs; an options object for a private CA or client certificate. */
  readonly tls?: boolean | tls.ConnectionOptions;
}

export type ConnectResult =
  | { readonly kind: 'connected'; readonly socket: net.Socket }
  | { readonly kind: 'failed'; readonly detail: string };

export function openSocket(endpoint: Endpoint, timeoutMs: number): Promise<ConnectResult> {
  return new Promise((resolve) => {
    const { host, port } = endpoint;
    const socket = endpoint.tls
      ? tls.connect({
          servername: net.isIP(host) ? undefined : host,
          ...tlsOptions(endpoint.tls),
          host,
          port,
        })
      : net.connect({ host, port });
    const ready = endpoint.tls ? 'secureConnect' : 'connect';
    const timer = setTimeout(
      () => finish({ kind: 'failed', detail: `connect timed out after ${timeoutMs} ms` }),
      timeoutMs,
    );
    const finish = (result: ConnectResult) => {
      clearTimeout(timer);
      socket.removeListener(ready, onReady);
      socket.removeListener('error', onError);
      if (result.kind === 'failed') socket.destroy();
      resolve(result);
    };
    const onReady = () => finish({ kind: 'connected', socket });
    const onError = (err: Error) => finish({ kind: 'failed', detail: err.message });
    socket.once(ready, onReady);
    socket.once('error', onError);
  });
}

function tlsOptions(option: true | tls.ConnectionOptions): tls.ConnectionOptions {
  return option === true ? {} : option;
}
