import type { ChildProcess } from 'node:child_process';

/**
 * A bearerbox + smsbox configuration for one test run, with one SMPP SMSC: our simulator (the
 * connector's interop test) or smsgw's own SMPP server (Kannel as a customer).
 */
export interface KannelPorts {
  readonly admin: number;
  readonly smsbox: number;
  readonly sendsms: number;
  /** The SMPP server Kannel binds to. */
  readonly smsc: number;
  /** The test's HTTP receiver for MO (sms-service get-url). */
  readonly receiver: number;
}

export const SENDSMS_USER = { username: 'tester', password: 'testpw' } as const;
export const SMSC_ACCOUNT = { systemId: 'kannel', password: 'kpw' } as const;

/** The `smsc` group's id, and settings of its own beyond the bind (one `key = value` per line). */
export interface KannelSmsc {
  readonly id: string;
  readonly settings?: string;
}

export function kannelConfig(dir: string, ports: KannelPorts, smsc: KannelSmsc = { id: 'sim' }): string {
  return `
group = core
admin-port = ${ports.admin}
admin-password = adminpw
admin-allow-ip = "127.0.0.1"
smsbox-port = ${ports.smsbox}
box-allow-ip = "127.0.0.1"
log-file = "${dir}/bearerbox.log"
log-level = 0
dlr-storage = internal

group = smsc
smsc = smpp
smsc-id = ${smsc.id}
host = 127.0.0.1
port = ${ports.smsc}
transceiver-mode = true
smsc-username = "${SMSC_ACCOUNT.systemId}"
smsc-password = "${SMSC_ACCOUNT.password}"
system-type = ""
${smsc.settings ?? ''}enquire-link-interval = 30
reconnect-delay = 1
max-pending-submits = 10

group = smsbox
bearerbox-host = 127.0.0.1
bearerbox-port = ${ports.smsbox}
sendsms-port = ${ports.sendsms}
log-file = "${dir}/smsbox.log"
log-level = 0

group = sendsms-user
username = ${SENDSMS_USER.username}
password = ${SENDSMS_USER.password}
max-messages = 10
concatenation = true

group = sms-service
keyword = default
catch-all = true
max-messages = 0
get-url = "http://127.0.0.1:${ports.receiver}/mo?from=%p&to=%P&text=%a"
`;
}

/** Stops bearerbox and smsbox: SIGTERM, then SIGKILL for a box still running after 5 s. */
export async function stopBoxes(boxes: readonly ChildProcess[]): Promise<void> {
  await Promise.all(
    boxes.map(
      (child) =>
        new Promise<void>((ok) => {
          if (child.exitCode !== null || child.signalCode !== null) return ok();
          const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
          child.once('exit', () => {
            clearTimeout(kill);
            ok();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}
