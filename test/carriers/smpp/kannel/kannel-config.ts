/** A bearerbox + smsbox configuration for one test run: our simulator as its only SMSC. */
export interface KannelPorts {
  readonly admin: number;
  readonly smsbox: number;
  readonly sendsms: number;
  /** Our simulator. */
  readonly smsc: number;
  /** The test's HTTP receiver for MO (sms-service get-url). */
  readonly receiver: number;
}

export const SENDSMS_USER = { username: 'tester', password: 'testpw' } as const;
export const SMSC_ACCOUNT = { systemId: 'kannel', password: 'kpw' } as const;

export function kannelConfig(dir: string, ports: KannelPorts): string {
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
smsc-id = sim
host = 127.0.0.1
port = ${ports.smsc}
transceiver-mode = true
smsc-username = "${SMSC_ACCOUNT.systemId}"
smsc-password = "${SMSC_ACCOUNT.password}"
system-type = ""
enquire-link-interval = 30
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
